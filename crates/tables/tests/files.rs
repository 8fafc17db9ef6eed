//! Layer files: a stopped build resumes, damaged or foreign files are reported and never
//! used.

use std::path::PathBuf;

use hoyito_rules::{CaptureSide, LastFour, Rules, Variant};
use hoyito_tables::{build, key_dir, Damage, Quiet, TableError, TableKey, Tables};

/// Tables of the default rules up to 8 seeds in a fresh folder: the folder, the rules and
/// the rules' own folder of layer files.
fn built_up_to_8() -> (tempfile::TempDir, Rules, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let r = Rules::default();
    build(dir.path(), &r, 8, &Quiet).unwrap();
    let folder = key_dir(dir.path(), &TableKey::of(&r));
    (dir, r, folder)
}

#[test]
fn stopped_build_resumes() {
    let (dir, r, folder) = built_up_to_8();
    // What a build stopped inside layer 12 leaves behind.
    std::fs::write(folder.join("layer-12.hyt.tmp"), b"half a file").unwrap();
    std::fs::create_dir_all(folder.join("layer-12.moves")).unwrap();
    std::fs::write(
        folder.join("layer-12.moves").join("moves-000.bin"),
        [1u8; 24],
    )
    .unwrap();
    let stats = build(dir.path(), &r, 12, &Quiet).unwrap();
    assert!(stats[0].reused, "layer 8 is kept");
    assert!(!stats[1].reused, "layer 12 is built");
    assert!(
        !folder.join("layer-12.moves").exists(),
        "scratch files are removed"
    );
    let t = Tables::open(dir.path(), &r).unwrap();
    assert_eq!(t.max_seeds(), 12);
}

#[test]
fn damaged_and_foreign_files_are_errors() {
    let (dir, r, folder) = built_up_to_8();
    let file = folder.join("layer-08.hyt");
    let good = std::fs::read(&file).unwrap();

    // A flipped bit in the payload, in the header, and a cut file.
    for (what, bytes) in [
        ("payload", {
            let mut b = good.clone();
            let n = b.len() - 10;
            b[n] ^= 1;
            b
        }),
        ("header", {
            let mut b = good.clone();
            b[30] ^= 1;
            b
        }),
        ("cut", good[..good.len() - 1].to_vec()),
        ("empty", Vec::new()),
    ] {
        std::fs::write(&file, &bytes).unwrap();
        match Tables::open(dir.path(), &r) {
            Err(TableError::Corrupt { .. }) => {}
            other => panic!("{what}: expected a corrupt-file error, got {other:?}"),
        }
    }

    // The file of other rules under this folder's name.
    let other = Rules::new(Variant::Hoyito3, 6, 4, LastFour::Capturer, CaptureSide::Any).unwrap();
    let odir = tempfile::tempdir().unwrap();
    build(odir.path(), &other, 8, &Quiet).unwrap();
    let foreign = key_dir(odir.path(), &TableKey::of(&other)).join("layer-08.hyt");
    std::fs::copy(&foreign, &file).unwrap();
    match Tables::open(dir.path(), &r) {
        Err(TableError::Mismatch { .. }) => {}
        other => panic!("expected a mismatch, got {other:?}"),
    }
    std::fs::write(&file, &good).unwrap();
    assert_eq!(Tables::open(dir.path(), &r).unwrap().max_seeds(), 8);
}

/// A header whose histogram sums past `u64::MAX`, its header checksum made right (the
/// checksum is no protection against a forged file), is a wrong field, not a panic
/// (found by the `table_file` fuzz target).
#[test]
fn a_forged_histogram_that_overflows_is_an_error() {
    let (dir, r, folder) = built_up_to_8();
    let file = folder.join("layer-08.hyt");
    let mut bytes = std::fs::read(&file).unwrap();
    // Fixed part of 72 bytes (bins at 52), then the bins, then the header checksum.
    let bins = u32::from_le_bytes(bytes[52..56].try_into().unwrap()) as usize;
    assert!(bins >= 2);
    for i in 0..bins {
        bytes[72 + 8 * i..80 + 8 * i].copy_from_slice(&u64::MAX.to_le_bytes());
    }
    let end = 72 + 8 * bins;
    let c = hoyito_tables::format::checksum(&bytes[..end]);
    bytes[end..end + 8].copy_from_slice(&c.to_le_bytes());
    std::fs::write(&file, &bytes).unwrap();
    let e = Tables::open(dir.path(), &r).unwrap_err();
    assert!(
        matches!(
            &e,
            TableError::Corrupt {
                damage: Damage::Field {
                    field: "histogram total",
                    found: u64::MAX,
                    ..
                },
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn an_error_shows_its_cause_once() {
    let (dir, r, folder) = built_up_to_8();
    let file = folder.join("layer-08.hyt");
    let mut bytes = std::fs::read(&file).unwrap();
    let n = bytes.len() - 10;
    bytes[n] ^= 1;
    std::fs::write(&file, &bytes).unwrap();
    let e = Tables::open(dir.path(), &r).unwrap_err();
    assert!(
        matches!(&e, TableError::Corrupt { damage: Damage::PayloadChecksum { stored, computed }, .. } if stored != computed),
        "{e:?}"
    );
    let text = e.to_string();
    assert!(text.starts_with(&file.display().to_string()), "{text}");
    assert_eq!(text.matches("checksum").count(), 1, "{text}");
    assert!(std::error::Error::source(&e).is_none());
}

#[cfg(unix)]
#[test]
fn free_space_is_read_for_a_folder_not_made_yet() {
    let dir = tempfile::tempdir().unwrap();
    let here = hoyito_tables::available_space(dir.path()).expect("statvfs works on unix");
    let below = hoyito_tables::available_space(&dir.path().join("a/b/c")).unwrap();
    assert!(here > 0);
    // The same file system, so about the same figure (other writers may change it a little).
    assert!(here.abs_diff(below) < 1 << 30, "{here} {below}");
}
