//! Runs `solve check-tables` and `solve check-proof --verify-tables`: tables built by `solve
//! tables build` are verified by the independent checker; a damaged value is rejected,
//! naming the layer's file and the position.

mod common;

use common::{fails, json, ok};

#[test]
fn built_tables_are_verified() {
    let tables = common::built_tables("12");
    let t = tables.path().to_str().unwrap();
    let text = ok(&["check-tables", t, "--quiet"]);
    assert!(text.contains("verified"), "{text}");
    assert!(text.contains("layer 12: 1352078 positions"), "{text}");
    assert!(text.contains("forced in finitely many moves"), "{text}");
    let v = json(&["check-tables", t, "--quiet"]);
    assert_eq!(v["verified"], true);
    let layers = v["layers"].as_array().unwrap();
    let seeds: Vec<u64> = layers
        .iter()
        .map(|l| l["seeds"].as_u64().unwrap())
        .collect();
    assert_eq!(seeds, [8, 12]);
    assert_eq!(layers[0]["positions"], 75582);
    // The payload checksum is the one `solve tables info --json` prints.
    let info = json(&["tables", "--dir", t, "info"]).to_string();
    let checksum = layers[1]["payload_checksum"].as_str().unwrap();
    assert!(info.contains(checksum), "{checksum} not in {info}");
    // One layer over the smaller ones, which are trusted; the same with --max-seeds.
    let v = json(&["check-tables", t, "--layer", "12", "--quiet"]);
    assert_eq!(v["layers"].as_array().unwrap().len(), 1);
    assert_eq!(v["trusted"], serde_json::json!([8]));
    let v = json(&["check-tables", t, "--max-seeds", "8", "--quiet"]);
    assert_eq!(v["layers"][0]["seeds"], 8);
    // Without --quiet, a line per pass on standard error.
    let (good, _, err) = common::run(&["check-tables", t, "--max-seeds", "8"]);
    assert!(good);
    assert!(err.contains("layer 8: pass 1:"), "{err}");
    // No tables of these rules in the folder.
    fails(&["check-tables", t, "--variant", "hoyito3"], "hoyito3");
}

#[test]
fn a_damaged_value_is_rejected_naming_the_position() {
    let tables = common::built_tables("8");
    let t = tables.path().to_str().unwrap();
    let path = tables
        .path()
        .join("2x6-hoyito2-capturer-any")
        .join("layer-08.hyt");
    let mut bytes = std::fs::read(&path).unwrap();
    // 8 seeds: step 4, 5 histogram bins, 3 bits a value; the payload after 80 + 40 bytes.
    let header = 80 + 8 * 5;
    // The value of position 0 one step away, within range (code 0 ..= 4).
    let code = bytes[header] & 7;
    let changed = if code < 4 { code + 1 } else { code - 1 };
    bytes[header] = (bytes[header] & !7) | changed;
    // Both checksums written anew: only the value check can tell.
    let payload = hoyito_check::tables::checksum(&bytes[header..]);
    bytes[40..48].copy_from_slice(&payload.to_le_bytes());
    let head = hoyito_check::tables::checksum(&bytes[..header - 8]);
    bytes[header - 8..header].copy_from_slice(&head.to_le_bytes());
    std::fs::write(&path, bytes).unwrap();
    let err = fails(&["check-tables", t, "--quiet"], "layer-08.hyt");
    assert!(err.contains("position"), "{err}");
    assert!(err.contains("best over its moves"), "{err}");
}

#[test]
fn check_proof_verifies_the_tables_it_rests_on() {
    let dir = tempfile::tempdir().unwrap();
    let tables = common::built_tables("12");
    let t = tables.path().to_str().unwrap();
    let cert = dir.path().join("p.cert");
    let c = cert.to_str().unwrap();
    let p = json(&[
        "prove",
        "1,2,1,0,2,2/2,1,1,2,1,1 S",
        "--tables",
        t,
        "--certificate",
        c,
    ]);
    assert_eq!(p["complete"], true);
    let v = json(&[
        "check-proof",
        c,
        "--tables",
        t,
        "--verify-tables",
        "--quiet",
    ]);
    assert_eq!(v["accepted"], true);
    let seeds: Vec<u64> = v["tables_verified"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["seeds"].as_u64().unwrap())
        .collect();
    assert_eq!(seeds, [8, 12]);
    let text = ok(&[
        "check-proof",
        c,
        "--tables",
        t,
        "--verify-tables",
        "--quiet",
    ]);
    assert!(text.contains("every value verified"), "{text}");
    // Without the flag, the tables are only read and checksummed.
    let v = json(&["check-proof", c, "--tables", t]);
    assert!(v.get("tables_verified").is_none());
    // --verify-tables needs --tables.
    fails(&["check-proof", c, "--verify-tables"], "--tables");
}

#[test]
fn a_state_folder_records_the_layers_verified() {
    let tables = common::built_tables("12");
    let t = tables.path().to_str().unwrap();
    let state = tempfile::tempdir().unwrap();
    let s = state.path().to_str().unwrap();
    let v = json(&["check-tables", t, "--state", s, "--quiet"]);
    assert_eq!(v["layers"][1]["earlier"], false);
    assert!(state
        .path()
        .join("2x6-hoyito2-capturer-any-12.verified")
        .exists());
    // Run again: read from the state, not checked again, and said so.
    let v = json(&["check-tables", t, "--state", s, "--quiet"]);
    assert_eq!(v["layers"][0]["earlier"], true);
    assert_eq!(v["layers"][1]["earlier"], true);
    let text = ok(&["check-tables", t, "--state", s, "--quiet"]);
    assert!(text.contains("verified by an earlier run"), "{text}");
    fails(
        &["check-tables", t, "--time-limit", "0"],
        "--time-limit must be at least 1 second",
    );
    fails(&["check-tables", t, "--save-every", "5"], "--state");
}
