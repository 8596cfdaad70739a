//! The data written to the export: a sparse store of 4 KiB chunks in memory, up to a budget.
//!
//! Without a backing file the memory is all there is: a write that needs more chunks than
//! the budget leaves gets `ENOSPC` and changes nothing (what was written before stays). With a
//! backing file (`--backing FILE`, a sparse image of the export) memory holds the chunks
//! written since the last write-back: when the budget is full, at FLUSH / FUA and when the
//! server ends they are written to the file (and synced), so the file is the whole export
//! and outlives the server. Chunks never written, trimmed or zeroed read as zeros and hold no
//! memory (and, in the file, are punched out where the file system allows).

use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Bytes per chunk.
pub const CHUNK: usize = 4096;
const CHUNK_U64: u64 = CHUNK as u64;

/// Why a write was refused.
#[derive(Debug)]
pub enum StoreError {
    /// The memory budget is full and there is no backing file.
    NoSpace,
    Io(io::Error),
}

impl From<io::Error> for StoreError {
    fn from(e: io::Error) -> Self {
        StoreError::Io(e)
    }
}

struct Chunk {
    data: Box<[u8]>,
    /// Written since the last write-back to the backing file.
    dirty: bool,
}

pub struct Store {
    size: u64,
    chunks: HashMap<u64, Chunk>,
    budget_chunks: usize,
    backing: Option<File>,
    /// Chunks written back to the backing file, and write-backs for want of memory.
    pub written_back: u64,
    pub spills: u64,
}

impl Store {
    /// A store of `size` bytes holding at most `budget` bytes in memory; `backing`, if any,
    /// is opened (created) as the export's image: an existing image is kept, and extended
    /// to `size` if shorter.
    pub fn new(size: u64, budget: u64, backing: Option<&Path>) -> io::Result<Self> {
        let backing = match backing {
            None => None,
            Some(p) => {
                let f = std::fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .open(p)?;
                if f.metadata()?.len() < size {
                    f.set_len(size)?;
                }
                // A file that only looks regular (/proc, /sys) keeps its length.
                let len = f.metadata()?.len();
                if len < size {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!("it stays {len} bytes when extended: not an image file"),
                    ));
                }
                Some(f)
            }
        };
        Ok(Self {
            size,
            chunks: HashMap::new(),
            budget_chunks: (budget / CHUNK_U64) as usize,
            backing,
            written_back: 0,
            spills: 0,
        })
    }

    /// Bytes of data held in memory.
    pub fn memory_bytes(&self) -> u64 {
        self.chunks.len() as u64 * CHUNK_U64
    }

    /// The chunks a range touches: (chunk index, offset in it, bytes), in order.
    fn pieces(offset: u64, len: u64) -> impl Iterator<Item = (u64, usize, usize)> {
        let end = offset + len;
        let mut at = offset;
        std::iter::from_fn(move || {
            if at >= end {
                return None;
            }
            let (c, o) = (at / CHUNK_U64, (at % CHUNK_U64) as usize);
            let n = (CHUNK - o).min((end - at) as usize);
            at += n as u64;
            Some((c, o, n))
        })
    }

    /// Copy `buf.len()` bytes at `offset` into `buf`.
    pub fn read(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        debug_assert!(offset + buf.len() as u64 <= self.size);
        let mut at = 0;
        for (c, o, n) in Self::pieces(offset, buf.len() as u64) {
            let dst = &mut buf[at..at + n];
            match (self.chunks.get(&c), &self.backing) {
                (Some(ch), _) => dst.copy_from_slice(&ch.data[o..o + n]),
                (None, Some(f)) => f.read_exact_at(dst, c * CHUNK_U64 + o as u64)?,
                (None, None) => dst.fill(0),
            }
            at += n;
        }
        Ok(())
    }

    /// Write `data` at `offset`. Without a backing file and with the budget full, nothing is
    /// changed and the write is refused.
    pub fn write(&mut self, offset: u64, data: &[u8]) -> Result<(), StoreError> {
        debug_assert!(offset + data.len() as u64 <= self.size);
        // Chunks this write must add: absent ones it puts non-zero bytes into.
        let mut at = 0;
        let mut new = 0;
        for (c, _, n) in Self::pieces(offset, data.len() as u64) {
            let absent = !self.chunks.contains_key(&c);
            if absent && (self.backing.is_some() || data[at..at + n].iter().any(|&b| b != 0)) {
                new += 1;
            }
            at += n;
        }
        if self.chunks.len() + new > self.budget_chunks {
            if self.backing.is_none() {
                return Err(StoreError::NoSpace);
            }
            self.spill()?;
            if new > self.budget_chunks {
                // Larger than the whole budget: straight to the image.
                let f = self.backing.as_ref().expect("checked");
                f.write_all_at(data, offset)?;
                return Ok(());
            }
        }
        let mut at = 0;
        for (c, o, n) in Self::pieces(offset, data.len() as u64) {
            let src = &data[at..at + n];
            at += n;
            if !self.chunks.contains_key(&c) {
                if src.iter().all(|&b| b == 0) && self.backing.is_none() {
                    continue; // zeros over a hole: still a hole
                }
                let mut buf = vec![0u8; CHUNK].into_boxed_slice();
                if let Some(f) = &self.backing {
                    if n < CHUNK {
                        f.read_exact_at(&mut buf, c * CHUNK_U64)?;
                    }
                }
                self.chunks.insert(
                    c,
                    Chunk {
                        data: buf,
                        dirty: true,
                    },
                );
            }
            let ch = self.chunks.get_mut(&c).expect("present");
            ch.data[o..o + n].copy_from_slice(src);
            ch.dirty = true;
        }
        Ok(())
    }

    /// Make `len` bytes at `offset` read as zeros (TRIM, WRITE_ZEROES): whole chunks are
    /// dropped (and punched out of the image), partial ones zeroed.
    pub fn zero(&mut self, offset: u64, len: u64) -> Result<(), StoreError> {
        debug_assert!(offset + len <= self.size);
        for (c, o, n) in Self::pieces(offset, len) {
            if n == CHUNK {
                self.chunks.remove(&c);
                if let Some(f) = &self.backing {
                    punch(f, c * CHUNK_U64, CHUNK_U64)?;
                }
            } else if let Some(ch) = self.chunks.get_mut(&c) {
                ch.data[o..o + n].fill(0);
                ch.dirty = true;
            } else if let Some(f) = &self.backing {
                f.write_all_at(&[0u8; CHUNK][..n], c * CHUNK_U64 + o as u64)?;
            }
        }
        Ok(())
    }

    /// Write every chunk changed since the last write-back to the backing file and sync it
    /// (FLUSH, FUA, the end): a no-op without one.
    pub fn flush(&mut self) -> io::Result<()> {
        let Some(f) = &self.backing else {
            return Ok(());
        };
        for (&c, ch) in self.chunks.iter_mut().filter(|(_, ch)| ch.dirty) {
            f.write_all_at(&ch.data, c * CHUNK_U64)?;
            ch.dirty = false;
            self.written_back += 1;
        }
        f.sync_data()
    }

    /// The budget is full: write everything back and free the memory.
    fn spill(&mut self) -> io::Result<()> {
        self.flush()?;
        self.chunks.clear();
        self.spills += 1;
        Ok(())
    }
}

/// Deallocate a range of the image (it then reads as zeros), or write zeros where the file
/// system cannot.
fn punch(f: &File, offset: u64, len: u64) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: fallocate on an open descriptor with a valid range; no memory is passed.
        let r = unsafe {
            libc::fallocate(
                f.as_raw_fd(),
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                offset as libc::off_t,
                len as libc::off_t,
            )
        };
        if r == 0 {
            return Ok(());
        }
    }
    let zeros = vec![0u8; len as usize];
    f.write_all_at(&zeros, offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &Store, offset: u64, len: usize) -> Vec<u8> {
        let mut b = vec![0xaa; len];
        s.read(offset, &mut b).unwrap();
        b
    }

    #[test]
    fn reads_return_what_was_written_and_zeros_elsewhere() {
        let mut s = Store::new(1 << 20, 1 << 20, None).unwrap();
        s.write(4000, &[7; 200]).unwrap();
        assert_eq!(read(&s, 4000, 200), vec![7; 200]);
        assert_eq!(read(&s, 3990, 10), vec![0; 10]);
        assert_eq!(s.memory_bytes(), 2 * CHUNK_U64, "across a chunk boundary");
        s.write(8192, &[0; 4096]).unwrap();
        assert_eq!(
            s.memory_bytes(),
            2 * CHUNK_U64,
            "zeros over a hole hold nothing"
        );
        s.zero(4000, 100).unwrap();
        assert_eq!(read(&s, 4000, 200)[..100], [0; 100]);
        assert_eq!(read(&s, 4100, 100), vec![7; 100]);
        s.zero(0, 8192).unwrap();
        assert_eq!(s.memory_bytes(), 0);
    }

    #[test]
    fn a_full_budget_refuses_new_data_and_keeps_the_old() {
        let mut s = Store::new(1 << 20, 2 * CHUNK_U64, None).unwrap();
        s.write(0, &[1; 8192]).unwrap();
        assert!(matches!(s.write(8192, &[2; 10]), Err(StoreError::NoSpace)));
        assert!(matches!(
            s.write(4096, &[3; 8192]),
            Err(StoreError::NoSpace)
        ));
        assert_eq!(
            read(&s, 0, 8192),
            vec![1; 8192],
            "nothing written before is lost"
        );
        s.write(100, &[4; 10]).unwrap(); // an overwrite needs no new chunk
        assert_eq!(read(&s, 100, 10), vec![4; 10]);
    }

    #[test]
    fn a_backing_file_takes_what_memory_cannot_and_keeps_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("image");
        let mut s = Store::new(1 << 20, 2 * CHUNK_U64, Some(&path)).unwrap();
        for k in 0..10u8 {
            s.write(k as u64 * 4096 + 1, &[k + 1; 4095]).unwrap();
        }
        assert!(s.spills > 0);
        s.write(1 << 19, &[9; 64 << 10]).unwrap(); // larger than the budget
        s.zero(4096, 4096).unwrap();
        s.flush().unwrap();
        drop(s);
        let s = Store::new(1 << 20, 2 * CHUNK_U64, Some(&path)).unwrap();
        assert_eq!(read(&s, 1, 4095), vec![1; 4095]);
        assert_eq!(read(&s, 4096, 4096), vec![0; 4096]);
        assert_eq!(read(&s, 9 * 4096 + 1, 4095), vec![10; 4095]);
        assert_eq!(read(&s, 1 << 19, 64 << 10), vec![9; 64 << 10]);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 1 << 20);
    }
}
