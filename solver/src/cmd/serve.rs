//! `solve serve`: the web board (docs/web.md), served by the `hoyito-web` crate.

use anyhow::Result;
use std::io::Write as _;

use crate::cli::ServeArgs;

/// `solve serve`: with `--json`, the address as one line `{"address": "http://..."}`.
pub fn run(json: bool, a: &ServeArgs) -> Result<()> {
    let options = hoyito_web::Options {
        host: a.host.clone(),
        port: a.port,
        tables: a.tables.clone(),
        max_analyses: a.max_analyses as usize,
        analysis_ms: a.analysis_ms,
        ..hoyito_web::Options::default()
    };
    let open = a.open;
    hoyito_web::serve_blocking(options, |address| {
        if json {
            println!("{}", serde_json::json!({ "address": address }));
        } else {
            println!("serving the web board at {address} (Ctrl-C stops)");
        }
        let _ = std::io::stdout().flush();
        if open {
            open_browser(address);
        }
    })
}

/// Opens `address` in the default browser, if the system says how; a failure only warns.
fn open_browser(address: &str) {
    let program = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(target_os = "windows") {
        "explorer"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(program).arg(address).spawn() {
        eprintln!("warning: cannot open a browser ({program}: {e}); open {address} yourself");
    }
}
