//! Compressed traces read exactly as their plain text: every shared trace compressed with
//! gzip, zstd, xz and bzip2 (by the encoders of the same crates), named with and
//! without the extension, gives the same detection and the same requests; a truncated or
//! mislabelled file is one clear error.

use std::io::Write;
use std::path::{Path, PathBuf};

use lagoon_workload::trace::{detect, open_trace, Compression};
use lagoon_workload::{IoRequest, TraceFormat};

const TRACES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/traces/");

fn shared(name: &str) -> PathBuf {
    Path::new(TRACES).join(name)
}

fn compress(data: &[u8], c: Compression) -> Vec<u8> {
    match c {
        Compression::None => data.to_vec(),
        Compression::Gzip => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        Compression::Bzip2 => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        Compression::Xz => {
            let mut e = xz2::write::XzEncoder::new(Vec::new(), 1);
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        Compression::Zstd => {
            ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest)
        }
    }
}

fn ext(c: Compression) -> &'static str {
    match c {
        Compression::None => "",
        Compression::Gzip => ".gz",
        Compression::Zstd => ".zst",
        Compression::Xz => ".xz",
        Compression::Bzip2 => ".bz2",
    }
}

fn read_all(path: &Path, format: Option<TraceFormat>) -> Vec<IoRequest> {
    open_trace(path, format, false)
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
}

/// A path `name` in a test's temporary directory (removed when the test drops it).
fn tmp(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    dir.path().join(name)
}

#[test]
fn compressed_traces_equal_plain() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "tpcc-small.trace",
        "wsrch-small.trace",
        "msr-cut-105.trace",
        "fiu-cheetah-mail.trace",
    ] {
        let plain_path = shared(name);
        let plain = read_all(&plain_path, None);
        let format = detect(&plain_path).unwrap().format;
        let data = std::fs::read(&plain_path).unwrap();
        for c in [
            Compression::Gzip,
            Compression::Zstd,
            Compression::Xz,
            Compression::Bzip2,
        ] {
            let bytes = compress(&data, c);
            // by extension (and magic), and by magic number alone
            for file in [format!("{name}{}", ext(c)), format!("{name}-{}", c.name())] {
                let path = tmp(&dir, &file);
                std::fs::write(&path, &bytes).unwrap();
                let d = detect(&path).unwrap();
                assert_eq!((d.format, d.compression), (format, c), "{file}");
                assert_eq!(read_all(&path, None), plain, "{file}");
                assert_eq!(read_all(&path, Some(format)), plain, "{file}");
                std::fs::remove_file(&path).unwrap();
            }
        }
    }
}

#[test]
fn concatenated_members_are_all_read() {
    let dir = tempfile::tempdir().unwrap();
    // `cat a.gz b.gz`, several zstd frames, two bzip2 streams: one trace
    let a = b"100 0 0 8 1\n200 0 8 8 0\n";
    let b = b"300 0 16 8 1\n";
    for c in [
        Compression::Gzip,
        Compression::Zstd,
        Compression::Xz,
        Compression::Bzip2,
    ] {
        let mut bytes = compress(a, c);
        bytes.extend(compress(b, c));
        let path = tmp(&dir, &format!("two{}", ext(c)));
        std::fs::write(&path, &bytes).unwrap();
        let got = read_all(&path, Some(TraceFormat::Mqsim));
        std::fs::remove_file(&path).unwrap();
        assert_eq!(
            got.iter().map(|r| r.arrival_ns).collect::<Vec<_>>(),
            [100, 200, 300],
            "{c:?}"
        );
    }
}

#[test]
fn broken_compressed_files_are_one_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let data = std::fs::read(shared("tpcc-small.trace")).unwrap();
    for c in [
        Compression::Gzip,
        Compression::Zstd,
        Compression::Xz,
        Compression::Bzip2,
    ] {
        let bytes = compress(&data, c);
        // cut in the middle: the lines before are read, then an error names the file and line
        let path = tmp(&dir, &format!("cut{}", ext(c)));
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        let name = path.display().to_string();
        let mut r = open_trace(&path, Some(TraceFormat::Mqsim), false).unwrap();
        let err = r.by_ref().find_map(Result::err).map(|e| e.to_string());
        std::fs::remove_file(&path).unwrap();
        let err = err.unwrap_or_else(|| panic!("{c:?}: a cut file read to its end"));
        assert!(
            err.starts_with(&format!("{name}: read error after line "))
                || err.starts_with(&format!("{name}:")),
            "{c:?}: {err}"
        );
        assert!(!err.contains('\n'), "{err}");
    }
    // an extension that the content does not carry
    let path = tmp(&dir, "plain.trace.gz");
    std::fs::write(&path, b"100 0 0 8 1\n").unwrap();
    let e = open_trace(&path, None, false).err().unwrap().to_string();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        e,
        format!(
            "{}:1: the name says gzip but the file does not start with gzip's magic number",
            path.display()
        )
    );
}

/// Issue 43: a zstd frame whose content checksum (its last 4 bytes) was corrupted was read
/// as if whole; now the frame is checked against it, and the error names the file.
#[test]
fn a_zstd_frame_with_a_corrupted_checksum_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let data = std::fs::read(shared("tpcc-small.trace")).unwrap();
    let good = compress(&data, Compression::Zstd);
    let path = tmp(&dir, "sum.trace.zst");
    std::fs::write(&path, &good).unwrap();
    assert_eq!(
        read_all(&path, None).len(),
        read_all(&shared("tpcc-small.trace"), None).len()
    );
    for i in 1..=4 {
        let mut bad = good.clone();
        let n = bad.len();
        bad[n - i] ^= 0x5a;
        std::fs::write(&path, &bad).unwrap();
        let err = open_trace(&path, Some(TraceFormat::Mqsim), false)
            .unwrap()
            .find_map(Result::err)
            .unwrap_or_else(|| panic!("checksum byte {i} from the end: read as whole"))
            .to_string();
        assert!(
            err.starts_with(&format!("{}: ", path.display()))
                && err.contains("zstd: frame 1: content checksum mismatch"),
            "{err}"
        );
        // Detection reads only the start: the error comes from the reader at the end.
        let e = detect(&path).map(|d| d.format);
        assert_eq!(e.ok(), Some(TraceFormat::Mqsim));
    }
}

/// Corrupted compressed files: every byte flip or cut ends in requests and then at most one
/// error naming the file, never a panic (the decoders run on hostile input).
#[test]
fn corrupted_compressed_files_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    use rand::{Rng, SeedableRng};
    let data = std::fs::read(shared("tpcc-small.trace")).unwrap();
    let data = &data[..20_000];
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(16);
    let cases: u64 = std::env::var("LAGOON_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60);
    for c in [
        Compression::Gzip,
        Compression::Zstd,
        Compression::Xz,
        Compression::Bzip2,
    ] {
        let good = compress(data, c);
        for case in 0..cases {
            let mut bytes = good.clone();
            for _ in 0..rng.random_range(1..4) {
                let i = rng.random_range(0..bytes.len());
                bytes[i] = rng.random();
            }
            if rng.random_range(0..4) == 0 {
                bytes.truncate(rng.random_range(1..bytes.len()));
            }
            let path = tmp(&dir, &format!("fuzz-{case}{}", ext(c)));
            std::fs::write(&path, &bytes).unwrap();
            let name = path.display().to_string();
            let outcome = std::panic::catch_unwind(|| {
                let mut errors = Vec::new();
                match open_trace(&path, None, true) {
                    Err(e) => errors.push(e.to_string()),
                    Ok(r) => {
                        for item in r {
                            if let Err(e) = item {
                                errors.push(e.to_string());
                            }
                        }
                    }
                }
                errors
            });
            std::fs::remove_file(&path).unwrap();
            let errors = outcome.unwrap_or_else(|_| panic!("{c:?} case {case}: panic"));
            assert!(errors.len() <= 1, "{errors:?}");
            for e in errors {
                assert!(e.starts_with(&name) && !e.contains('\n'), "{e}");
            }
        }
    }
}
