//! Opening a trace file as a stream of text, decompressing it on the way when it is
//! compressed: gzip (`.gz`), zstd (`.zst`), xz (`.xz`) and bzip2 (`.bz2`), recognised by
//! their magic number (the file name's extension must agree with it when it names one).
//!
//! ```text
//!  file ──peek 6 bytes──> magic? ─gzip──> flate2::MultiGzDecoder (every member)
//!                                 ─zstd──> ruzstd::StreamingDecoder (every frame)
//!                                 ─xz────> xz2::bufread::XzDecoder (every stream)
//!                                 ─bzip2─> bzip2::MultiBzDecoder (every stream)
//!                                 ─none──> the file itself
//! ```
//!
//! Nothing is unpacked to disk and nothing grows with the length of the file: each
//! decoder holds its format's window (gzip 32 KiB, bzip2 900 KiB, zstd and xz the window
//! the file declares, at most 100 MiB for zstd) and a 64 KiB read buffer. The gzip, zstd
//! and bzip2 decoders are pure Rust; xz is liblzma's C source built by the `xz2` crate
//! (the pure-Rust `lzma-rs` decodes a whole xz block in memory: 547 MB for a 95 MB file,
//! see docs/BENCHMARKS.md).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use super::open_file;
use crate::WorkloadError;

/// A trace's compression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    None,
    Gzip,
    Zstd,
    Xz,
    Bzip2,
}

impl Compression {
    /// `gzip`, `zstd`, `xz`, `bzip2`, or `none`.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Xz => "xz",
            Compression::Bzip2 => "bzip2",
        }
    }

    /// The compression a file name's extension names (`.gz`, `.zst`, `.xz`, `.bz2`, any case).
    pub fn from_extension(path: &Path) -> Option<Compression> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "gz" | "gzip" => Some(Compression::Gzip),
            "zst" | "zstd" => Some(Compression::Zstd),
            "xz" => Some(Compression::Xz),
            "bz2" => Some(Compression::Bzip2),
            _ => None,
        }
    }

    /// The compression whose magic number `head` starts with (`None` for anything else).
    pub fn from_magic(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
            Compression::Xz
        } else if head.len() >= 4 && head.starts_with(b"BZh") && (b'1'..=b'9').contains(&head[3]) {
            Compression::Bzip2
        } else {
            Compression::None
        }
    }
}

/// The buffered text of a trace file.
pub type Input = Box<dyn BufRead + Send>;

const BUF: usize = 1 << 16;

/// Opens `path` for reading as text, decompressing as it goes (see the module doc).
/// A file whose extension names a compression its first bytes do not carry is an error.
pub fn open_input(path: &Path) -> Result<(Input, Compression), WorkloadError> {
    let name = path.display().to_string();
    let file = open_file(path)?;
    let mut raw = BufReader::with_capacity(BUF, file);
    let head = peek(&mut raw, 6).map_err(|err| WorkloadError::Io {
        file: name.clone(),
        action: "cannot read trace".to_string(),
        err,
    })?;
    let found = Compression::from_magic(&head);
    if let Some(named) = Compression::from_extension(path) {
        if named != found {
            return Err(WorkloadError::Malformed {
                file: name,
                line: 1,
                message: format!(
                    "the name says {} but the file does not start with {}'s magic number{}",
                    named.name(),
                    named.name(),
                    match found {
                        Compression::None => String::new(),
                        other => format!(" (it starts with {}'s)", other.name()),
                    }
                ),
            });
        }
    }
    let input: Input = match found {
        Compression::None => Box::new(raw),
        Compression::Gzip => Box::new(BufReader::with_capacity(
            BUF,
            flate2::bufread::MultiGzDecoder::new(raw),
        )),
        Compression::Bzip2 => Box::new(BufReader::with_capacity(
            BUF,
            bzip2::bufread::MultiBzDecoder::new(raw),
        )),
        Compression::Zstd => Box::new(BufReader::with_capacity(BUF, ZstdFrames::new(raw))),
        Compression::Xz => Box::new(BufReader::with_capacity(
            BUF,
            xz2::bufread::XzDecoder::new_multi_decoder(raw),
        )),
    };
    Ok((input, found))
}

/// Up to `n` leading bytes of `r`, without consuming them.
fn peek(r: &mut BufReader<File>, n: usize) -> io::Result<Vec<u8>> {
    loop {
        match r.fill_buf() {
            Ok(b) => return Ok(b[..b.len().min(n)].to_vec()),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}

fn other(e: impl std::fmt::Display, what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("{what}: {e}"))
}

/// Every frame of a zstd file, one after the other (`zstd` writes one frame per file,
/// `pzstd` and `zstdmt` several). A frame that carries a content checksum is checked
/// against it at its end (the decoder computes it but does not compare).
struct ZstdFrames<R: BufRead> {
    source: Option<R>,
    frame: Option<ruzstd::decoding::StreamingDecoder<R, ruzstd::decoding::FrameDecoder>>,
    /// Frames started, for the error.
    frames: u64,
}

impl<R: BufRead> ZstdFrames<R> {
    fn new(source: R) -> Self {
        ZstdFrames {
            source: Some(source),
            frame: None,
            frames: 0,
        }
    }
}

impl<R: BufRead> Read for ZstdFrames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if let Some(frame) = &mut self.frame {
                let n = frame.read(buf)?;
                if n > 0 || buf.is_empty() {
                    return Ok(n);
                }
                let (source, decoder) = self.frame.take().expect("a frame").into_parts();
                if let (Some(file), Some(data)) = (
                    decoder.get_checksum_from_data(),
                    decoder.get_calculated_checksum(),
                ) {
                    if file != data {
                        return Err(other(
                            format!(
                                "frame {}: content checksum mismatch (the file says {file:08x}, the data gives {data:08x}): the file is corrupt",
                                self.frames
                            ),
                            "zstd",
                        ));
                    }
                }
                self.source = Some(source);
            }
            let Some(mut source) = self.source.take() else {
                return Ok(0);
            };
            if source.fill_buf()?.is_empty() {
                return Ok(0); // no further frame
            }
            let frame =
                ruzstd::decoding::StreamingDecoder::new(source).map_err(|e| other(e, "zstd"))?;
            self.frame = Some(frame);
            self.frames += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_numbers() {
        assert_eq!(Compression::from_magic(b"\x1f\x8b\x08"), Compression::Gzip);
        assert_eq!(
            Compression::from_magic(b"\x28\xb5\x2f\xfd\x00"),
            Compression::Zstd
        );
        assert_eq!(Compression::from_magic(b"\xfd7zXZ\x00"), Compression::Xz);
        assert_eq!(Compression::from_magic(b"BZh91AY"), Compression::Bzip2);
        assert_eq!(Compression::from_magic(b"BZhx"), Compression::None);
        assert_eq!(Compression::from_magic(b"100 0 8 8 1"), Compression::None);
        assert_eq!(Compression::from_magic(b""), Compression::None);
        assert_eq!(
            Compression::from_extension(Path::new("a/b.csv.GZ")),
            Some(Compression::Gzip)
        );
        assert_eq!(Compression::from_extension(Path::new("b.trace")), None);
    }
}
