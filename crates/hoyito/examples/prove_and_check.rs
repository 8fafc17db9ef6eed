//! Proves a small position's value, writes its certificate, and checks the certificate with
//! the independent checker.
//!
//! `cargo run -p hoyito --example prove_and_check`

use hoyito::proof::{check_certificate, prove, ProofControl, ProofOptions};
use hoyito::{Diagram, Rules};

fn main() -> hoyito::Result<()> {
    let rules = Rules::default();
    let d: Diagram = "4,0,1,0,0,1/0,0,0,0,1,1 S".parse()?;
    let cert = std::env::temp_dir().join("hoyito-example.cert");
    let options = ProofOptions {
        no_tables: true,
        certificate: Some(cert.clone()),
        ..ProofOptions::default()
    };
    let report = prove(&rules, Some(&d), &options, &ProofControl::default())?;
    print!("{report}");
    let checked = check_certificate(&cert, None)?;
    println!(
        "the checker accepts {}: {} entries, {} moves checked",
        cert.display(),
        checked.entries,
        checked.steps
    );
    Ok(())
}
