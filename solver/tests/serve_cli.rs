//! `solve serve`: it prints the address it really listens on (with `--port 0`, the port
//! the system gave), binds 127.0.0.1 by default, and answers there.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::process::{Command, Stdio};

#[test]
fn serve_prints_its_real_address_and_answers_there() {
    let mut server = Command::new(env!("CARGO_BIN_EXE_solve"))
        .env("HOYITO_CACHE", "off")
        .args(["serve", "--port", "0", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&line).unwrap();
    let address = v["address"].as_str().unwrap().to_string();
    let host = address.strip_prefix("http://").unwrap();
    assert!(host.starts_with("127.0.0.1:"), "{address}");
    assert!(!host.ends_with(":0"), "{address}");
    let mut stream = TcpStream::connect(host).unwrap();
    write!(
        stream,
        "GET /api/health HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    server.kill().unwrap();
    server.wait().unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains(r#"{"ok":true}"#), "{answer}");
}
