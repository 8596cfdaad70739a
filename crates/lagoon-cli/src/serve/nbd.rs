//! The Network Block Device protocol, server side, as the NBD project's `doc/proto.md` sets
//! it out: fixed newstyle negotiation (`NBD_OPT_EXPORT_NAME`, `NBD_OPT_INFO`/`NBD_OPT_GO`
//! with `NBD_INFO_EXPORT` and `NBD_INFO_BLOCK_SIZE`, `NBD_OPT_LIST`, `NBD_OPT_ABORT`; every
//! other option answered `NBD_REP_ERR_UNSUP`, TLS `NBD_REP_ERR_POLICY`), then simple replies
//! to READ, WRITE (FUA), FLUSH, TRIM, WRITE_ZEROES (NO_HOLE) and DISC. No structured replies,
//! no block status, no TLS.
//!
//! [`Session`] is a pure codec: bytes in, bytes and [`Request`]s out, no I/O, so every
//! message and every malformed one is tested without a socket.

/// `NBDMAGIC`, then `IHAVEOPT`: the server's greeting and the client's option prefix.
pub const NBDMAGIC: u64 = 0x4e42_444d_4147_4943;
pub const IHAVEOPT: u64 = 0x4948_4156_454F_5054;
/// Magic of an option reply.
pub const OPT_REPLY_MAGIC: u64 = 0x0003_e889_0455_65a9;
pub const REQUEST_MAGIC: u32 = 0x2560_9513;
pub const SIMPLE_REPLY_MAGIC: u32 = 0x6744_6698;

// Handshake flags (server) and client flags.
pub const FLAG_FIXED_NEWSTYLE: u16 = 1;
pub const FLAG_NO_ZEROES: u16 = 2;
pub const FLAG_C_FIXED_NEWSTYLE: u32 = 1;
pub const FLAG_C_NO_ZEROES: u32 = 2;

// Transmission flags.
pub const FLAG_HAS_FLAGS: u16 = 1;
pub const FLAG_SEND_FLUSH: u16 = 1 << 2;
pub const FLAG_SEND_FUA: u16 = 1 << 3;
pub const FLAG_SEND_TRIM: u16 = 1 << 5;
pub const FLAG_SEND_WRITE_ZEROES: u16 = 1 << 6;
pub const FLAG_CAN_MULTI_CONN: u16 = 1 << 8;

// Options.
pub const OPT_EXPORT_NAME: u32 = 1;
pub const OPT_ABORT: u32 = 2;
pub const OPT_LIST: u32 = 3;
pub const OPT_STARTTLS: u32 = 5;
pub const OPT_INFO: u32 = 6;
pub const OPT_GO: u32 = 7;

// Option replies.
pub const REP_ACK: u32 = 1;
pub const REP_SERVER: u32 = 2;
pub const REP_INFO: u32 = 3;
pub const REP_ERR_UNSUP: u32 = (1 << 31) + 1;
pub const REP_ERR_POLICY: u32 = (1 << 31) + 2;
pub const REP_ERR_INVALID: u32 = (1 << 31) + 3;
pub const REP_ERR_UNKNOWN: u32 = (1 << 31) + 6;

// Information types.
pub const INFO_EXPORT: u16 = 0;
pub const INFO_NAME: u16 = 1;
pub const INFO_DESCRIPTION: u16 = 2;
pub const INFO_BLOCK_SIZE: u16 = 3;

// Commands and command flags.
pub const CMD_READ: u16 = 0;
pub const CMD_WRITE: u16 = 1;
pub const CMD_DISC: u16 = 2;
pub const CMD_FLUSH: u16 = 3;
pub const CMD_TRIM: u16 = 4;
pub const CMD_WRITE_ZEROES: u16 = 6;
pub const CMD_FLAG_FUA: u16 = 1;
pub const CMD_FLAG_NO_HOLE: u16 = 2;

// Errors (proto.md "Error values").
pub const EPERM: u32 = 1;
pub const EIO: u32 = 5;
pub const EINVAL: u32 = 22;
pub const ENOSPC: u32 = 28;
pub const ESHUTDOWN: u32 = 108;

/// Longest option a client may send (an export name is at most 4096 bytes).
pub const MAX_OPTION_BYTES: u32 = 8192;
/// Options one connection may send before it is closed (a client that never chooses).
pub const MAX_OPTIONS: u32 = 64;

/// What the export looks like to clients.
#[derive(Clone, Debug)]
pub struct Export {
    pub name: String,
    pub description: String,
    pub size: u64,
    /// `NBD_INFO_BLOCK_SIZE`: minimum, preferred, maximum payload.
    pub block_min: u32,
    pub block_preferred: u32,
    pub max_payload: u32,
}

impl Export {
    pub fn transmission_flags(&self) -> u16 {
        FLAG_HAS_FLAGS
            | FLAG_SEND_FLUSH
            | FLAG_SEND_FUA
            | FLAG_SEND_TRIM
            | FLAG_SEND_WRITE_ZEROES
            | FLAG_CAN_MULTI_CONN
    }

    /// The default export ("") or its own name.
    fn matches(&self, name: &[u8]) -> bool {
        name.is_empty() || name == self.name.as_bytes()
    }
}

/// One transmission request, its payload (a write's data) still in the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub flags: u16,
    pub cmd: u16,
    pub handle: u64,
    pub offset: u64,
    pub len: u32,
}

/// What [`Session::step`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    /// Not enough input for the next message.
    More,
    /// A negotiation message was handled (replies are in the output); `n` bytes used.
    Handled(usize),
    /// Negotiation ended: the connection now carries requests.
    Transmission(usize),
    /// A request; `n` bytes used, the last `req.len` of them its payload for a write.
    Request(usize, Request),
    /// Close the connection (after sending the output), with why.
    Close(&'static str),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    ClientFlags,
    Options,
    Transmission,
}

/// The protocol state of one connection.
pub struct Session {
    phase: Phase,
    fixed: bool,
    no_zeroes: bool,
    options: u32,
}

impl Default for Session {
    fn default() -> Self {
        Self::new()
    }
}

fn be16(b: &[u8]) -> u16 {
    u16::from_be_bytes([b[0], b[1]])
}
fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes(b[..4].try_into().expect("4 bytes"))
}
fn be64(b: &[u8]) -> u64 {
    u64::from_be_bytes(b[..8].try_into().expect("8 bytes"))
}

/// The server's opening bytes: magic, `IHAVEOPT`, handshake flags.
pub fn greeting(out: &mut Vec<u8>) {
    out.extend_from_slice(&NBDMAGIC.to_be_bytes());
    out.extend_from_slice(&IHAVEOPT.to_be_bytes());
    out.extend_from_slice(&(FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES).to_be_bytes());
}

/// An option reply.
fn opt_reply(out: &mut Vec<u8>, opt: u32, kind: u32, data: &[u8]) {
    out.extend_from_slice(&OPT_REPLY_MAGIC.to_be_bytes());
    out.extend_from_slice(&opt.to_be_bytes());
    out.extend_from_slice(&kind.to_be_bytes());
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(data);
}

/// A simple reply's header (a successful read's data follows it).
pub fn simple_reply(out: &mut Vec<u8>, error: u32, handle: u64) {
    out.extend_from_slice(&SIMPLE_REPLY_MAGIC.to_be_bytes());
    out.extend_from_slice(&error.to_be_bytes());
    out.extend_from_slice(&handle.to_be_bytes());
}

impl Session {
    pub fn new() -> Self {
        Self {
            phase: Phase::ClientFlags,
            fixed: false,
            no_zeroes: false,
            options: 0,
        }
    }

    pub fn in_transmission(&self) -> bool {
        self.phase == Phase::Transmission
    }

    /// The length of the message at the front of `input` once its header is there (a
    /// write's with its payload); `None` before, or for a message [`Session::step`] refuses.
    pub fn message_len(&self, input: &[u8], max_payload: u32) -> Option<usize> {
        match self.phase {
            Phase::ClientFlags => Some(4),
            Phase::Options if input.len() >= 16 => {
                let len = be32(&input[12..]);
                (len <= MAX_OPTION_BYTES).then_some(16 + len as usize)
            }
            Phase::Transmission if input.len() >= 28 => {
                if be16(&input[6..]) != CMD_WRITE {
                    return Some(28);
                }
                let len = be32(&input[24..]);
                (len <= max_payload).then_some(28 + len as usize)
            }
            _ => None,
        }
    }

    /// Handle the next message at the front of `input`, appending replies to `out`.
    pub fn step(&mut self, input: &[u8], ex: &Export, out: &mut Vec<u8>) -> Step {
        match self.phase {
            Phase::ClientFlags => {
                if input.len() < 4 {
                    return Step::More;
                }
                let f = be32(input);
                if f & !(FLAG_C_FIXED_NEWSTYLE | FLAG_C_NO_ZEROES) != 0 {
                    return Step::Close("unknown client flags");
                }
                self.fixed = f & FLAG_C_FIXED_NEWSTYLE != 0;
                self.no_zeroes = f & FLAG_C_NO_ZEROES != 0;
                self.phase = Phase::Options;
                Step::Handled(4)
            }
            Phase::Options => self.option(input, ex, out),
            Phase::Transmission => request(input, ex),
        }
    }

    fn option(&mut self, input: &[u8], ex: &Export, out: &mut Vec<u8>) -> Step {
        if input.len() < 16 {
            return Step::More;
        }
        if be64(input) != IHAVEOPT {
            return Step::Close("option without IHAVEOPT magic");
        }
        let (opt, len) = (be32(&input[8..]), be32(&input[12..]));
        if len > MAX_OPTION_BYTES {
            return Step::Close("option data too long");
        }
        let n = 16 + len as usize;
        if input.len() < n {
            return Step::More;
        }
        self.options += 1;
        if self.options > MAX_OPTIONS {
            return Step::Close("too many options");
        }
        let data = &input[16..n];
        if !self.fixed && opt != OPT_EXPORT_NAME {
            // Non-fixed newstyle knows no other option and no way to refuse one.
            return Step::Close("option other than EXPORT_NAME without fixed newstyle");
        }
        match opt {
            OPT_EXPORT_NAME => {
                if !ex.matches(data) {
                    return Step::Close("unknown export name");
                }
                out.extend_from_slice(&ex.size.to_be_bytes());
                out.extend_from_slice(&ex.transmission_flags().to_be_bytes());
                if !self.no_zeroes {
                    out.extend_from_slice(&[0; 124]);
                }
                self.phase = Phase::Transmission;
                Step::Transmission(n)
            }
            OPT_ABORT => {
                opt_reply(out, opt, REP_ACK, &[]);
                Step::Close("client aborted the negotiation")
            }
            OPT_LIST => {
                if !data.is_empty() {
                    opt_reply(out, opt, REP_ERR_INVALID, b"NBD_OPT_LIST takes no data");
                } else {
                    let mut d = (ex.name.len() as u32).to_be_bytes().to_vec();
                    d.extend_from_slice(ex.name.as_bytes());
                    opt_reply(out, opt, REP_SERVER, &d);
                    opt_reply(out, opt, REP_ACK, &[]);
                }
                Step::Handled(n)
            }
            OPT_STARTTLS => {
                opt_reply(out, opt, REP_ERR_POLICY, b"lagoon serve does not offer TLS");
                Step::Handled(n)
            }
            OPT_INFO | OPT_GO => self.info(opt, data, ex, out, n),
            _ => {
                opt_reply(out, opt, REP_ERR_UNSUP, b"option not supported");
                Step::Handled(n)
            }
        }
    }

    /// `NBD_OPT_INFO` / `NBD_OPT_GO`: name length, name, number of requests, requests.
    fn info(&mut self, opt: u32, data: &[u8], ex: &Export, out: &mut Vec<u8>, n: usize) -> Step {
        let parsed = (|| {
            let nl = be32(data.get(..4)?) as usize;
            let name = data.get(4..4 + nl)?;
            let k = be16(data.get(4 + nl..6 + nl)?) as usize;
            let reqs = data.get(6 + nl..)?;
            (reqs.len() == 2 * k).then(|| (name, reqs.chunks(2).map(be16).collect::<Vec<_>>()))
        })();
        let Some((name, wanted)) = parsed else {
            opt_reply(out, opt, REP_ERR_INVALID, b"malformed information request");
            return Step::Handled(n);
        };
        if !ex.matches(name) {
            opt_reply(out, opt, REP_ERR_UNKNOWN, b"no such export");
            return Step::Handled(n);
        }
        let mut d = INFO_EXPORT.to_be_bytes().to_vec();
        d.extend_from_slice(&ex.size.to_be_bytes());
        d.extend_from_slice(&ex.transmission_flags().to_be_bytes());
        opt_reply(out, opt, REP_INFO, &d);
        // Block sizes are always sent: the minimum and preferred sizes matter to a client
        // that did not ask (proto.md lets a server send them unasked).
        let mut d = INFO_BLOCK_SIZE.to_be_bytes().to_vec();
        for v in [ex.block_min, ex.block_preferred, ex.max_payload] {
            d.extend_from_slice(&v.to_be_bytes());
        }
        opt_reply(out, opt, REP_INFO, &d);
        for &w in &wanted {
            let (kind, text) = match w {
                INFO_NAME => (INFO_NAME, &ex.name),
                INFO_DESCRIPTION => (INFO_DESCRIPTION, &ex.description),
                _ => continue,
            };
            let mut d = kind.to_be_bytes().to_vec();
            d.extend_from_slice(text.as_bytes());
            opt_reply(out, opt, REP_INFO, &d);
        }
        opt_reply(out, opt, REP_ACK, &[]);
        if opt == OPT_GO {
            self.phase = Phase::Transmission;
            return Step::Transmission(n);
        }
        Step::Handled(n)
    }
}

/// The request at the front of `input` (with its payload, for a write).
fn request(input: &[u8], ex: &Export) -> Step {
    if input.len() < 28 {
        return Step::More;
    }
    if be32(input) != REQUEST_MAGIC {
        return Step::Close("request without the request magic");
    }
    let r = Request {
        flags: be16(&input[4..]),
        cmd: be16(&input[6..]),
        handle: be64(&input[8..]),
        offset: be64(&input[16..]),
        len: be32(&input[24..]),
    };
    if r.cmd == CMD_WRITE {
        if r.len > ex.max_payload {
            // Its payload cannot be skipped safely: the stream has lost its framing.
            return Step::Close("write larger than the advertised maximum payload");
        }
        let n = 28 + r.len as usize;
        if input.len() < n {
            return Step::More;
        }
        return Step::Request(n, r);
    }
    Step::Request(28, r)
}

/// The error a request gets before it reaches the drive, if any (proto.md: EINVAL for an
/// unknown command or flag or a read past the end, ENOSPC for a write past the end; EINVAL
/// for a length of 0).
pub fn check(r: &Request, ex: &Export) -> Option<u32> {
    let allowed = match r.cmd {
        CMD_READ | CMD_WRITE | CMD_TRIM | CMD_FLUSH => CMD_FLAG_FUA,
        CMD_WRITE_ZEROES => CMD_FLAG_FUA | CMD_FLAG_NO_HOLE,
        CMD_DISC => 0,
        _ => return Some(EINVAL),
    };
    if r.flags & !allowed != 0 {
        return Some(EINVAL);
    }
    let end = r.offset.checked_add(r.len as u64);
    let past = end.is_none_or(|e| e > ex.size);
    match r.cmd {
        // proto.md leaves a length of 0 unspecified (the server SHOULD NOT disconnect); a
        // block device refuses it, and it has no place in a trace.
        CMD_READ | CMD_WRITE | CMD_TRIM | CMD_WRITE_ZEROES if r.len == 0 => Some(EINVAL),
        CMD_READ if r.len > ex.max_payload || past => Some(EINVAL),
        CMD_WRITE | CMD_WRITE_ZEROES if past => Some(ENOSPC),
        CMD_TRIM if past => Some(EINVAL),
        CMD_FLUSH | CMD_DISC if r.offset != 0 || r.len != 0 => Some(EINVAL),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn export() -> Export {
        Export {
            name: "lagoon".into(),
            description: "test".into(),
            size: 1 << 20,
            block_min: 512,
            block_preferred: 4096,
            max_payload: 1 << 16,
        }
    }

    fn option(opt: u32, data: &[u8]) -> Vec<u8> {
        let mut v = IHAVEOPT.to_be_bytes().to_vec();
        v.extend_from_slice(&opt.to_be_bytes());
        v.extend_from_slice(&(data.len() as u32).to_be_bytes());
        v.extend_from_slice(data);
        v
    }

    fn go_data(name: &str, infos: &[u16]) -> Vec<u8> {
        let mut d = (name.len() as u32).to_be_bytes().to_vec();
        d.extend_from_slice(name.as_bytes());
        d.extend_from_slice(&(infos.len() as u16).to_be_bytes());
        for i in infos {
            d.extend_from_slice(&i.to_be_bytes());
        }
        d
    }

    /// Option replies in `out`: (option, type, data).
    fn replies(mut out: &[u8]) -> Vec<(u32, u32, Vec<u8>)> {
        let mut v = Vec::new();
        while !out.is_empty() {
            assert_eq!(be64(out), OPT_REPLY_MAGIC);
            let len = be32(&out[16..]) as usize;
            v.push((
                be32(&out[8..]),
                be32(&out[12..]),
                out[20..20 + len].to_vec(),
            ));
            out = &out[20 + len..];
        }
        v
    }

    fn negotiated(flags: u32) -> Session {
        let mut s = Session::new();
        let mut out = Vec::new();
        assert_eq!(
            s.step(&flags.to_be_bytes(), &export(), &mut out),
            Step::Handled(4)
        );
        s
    }

    #[test]
    fn greeting_is_magic_ihaveopt_and_fixed_newstyle() {
        let mut out = Vec::new();
        greeting(&mut out);
        assert_eq!(&out[..8], b"NBDMAGIC");
        assert_eq!(&out[8..16], b"IHAVEOPT");
        assert_eq!(be16(&out[16..]), 3);
    }

    #[test]
    fn go_sends_export_and_block_sizes_then_ack() {
        let mut s = negotiated(3);
        let msg = option(OPT_GO, &go_data("", &[INFO_BLOCK_SIZE, INFO_NAME, 99]));
        let mut out = Vec::new();
        assert_eq!(
            s.step(&msg[..msg.len() - 1], &export(), &mut out),
            Step::More
        );
        assert_eq!(
            s.step(&msg, &export(), &mut out),
            Step::Transmission(msg.len())
        );
        let r = replies(&out);
        assert_eq!(r.len(), 4);
        assert_eq!((r[0].0, r[0].1), (OPT_GO, REP_INFO));
        assert_eq!(be16(&r[0].2), INFO_EXPORT);
        assert_eq!(be64(&r[0].2[2..]), 1 << 20);
        assert_eq!(be16(&r[1].2), INFO_BLOCK_SIZE);
        assert_eq!(
            (be32(&r[1].2[2..]), be32(&r[1].2[6..]), be32(&r[1].2[10..])),
            (512, 4096, 1 << 16)
        );
        assert_eq!(&r[2].2[2..], b"lagoon");
        assert_eq!(r[3].1, REP_ACK);
        assert!(s.in_transmission());
    }

    #[test]
    fn info_stays_in_negotiation_and_unknown_names_are_refused() {
        let mut s = negotiated(1);
        let mut out = Vec::new();
        let msg = option(OPT_INFO, &go_data("lagoon", &[]));
        assert_eq!(s.step(&msg, &export(), &mut out), Step::Handled(msg.len()));
        assert!(!s.in_transmission());
        out.clear();
        let msg = option(OPT_GO, &go_data("other", &[]));
        assert_eq!(s.step(&msg, &export(), &mut out), Step::Handled(msg.len()));
        assert_eq!(replies(&out)[0].1, REP_ERR_UNKNOWN);
        out.clear();
        // A name length past the data.
        let mut bad = go_data("lagoon", &[]);
        bad[3] = 200;
        let msg = option(OPT_GO, &bad);
        assert_eq!(s.step(&msg, &export(), &mut out), Step::Handled(msg.len()));
        assert_eq!(replies(&out)[0].1, REP_ERR_INVALID);
    }

    #[test]
    fn export_name_enters_transmission_with_or_without_zeroes() {
        for (flags, len) in [(1u32, 8 + 2 + 124), (3, 10)] {
            let mut s = negotiated(flags);
            let mut out = Vec::new();
            let msg = option(OPT_EXPORT_NAME, b"lagoon");
            assert_eq!(
                s.step(&msg, &export(), &mut out),
                Step::Transmission(msg.len())
            );
            assert_eq!(out.len(), len);
            assert_eq!(be64(&out), 1 << 20);
            assert_eq!(be16(&out[8..]), export().transmission_flags());
        }
        let mut s = negotiated(1);
        let msg = option(OPT_EXPORT_NAME, b"nope");
        assert!(matches!(
            s.step(&msg, &export(), &mut Vec::new()),
            Step::Close(_)
        ));
    }

    #[test]
    fn list_abort_tls_and_unknown_options() {
        let mut s = negotiated(1);
        let mut out = Vec::new();
        let msg = option(OPT_LIST, &[]);
        s.step(&msg, &export(), &mut out);
        let r = replies(&out);
        assert_eq!((r[0].1, r[1].1), (REP_SERVER, REP_ACK));
        assert_eq!(&r[0].2[4..], b"lagoon");
        for (opt, want) in [
            (OPT_STARTTLS, REP_ERR_POLICY),
            (8, REP_ERR_UNSUP),
            (999, REP_ERR_UNSUP),
        ] {
            out.clear();
            let msg = option(opt, &[]);
            assert_eq!(s.step(&msg, &export(), &mut out), Step::Handled(msg.len()));
            assert_eq!(replies(&out)[0].1, want);
        }
        out.clear();
        assert!(matches!(
            s.step(&option(OPT_ABORT, &[]), &export(), &mut out),
            Step::Close(_)
        ));
        assert_eq!(replies(&out)[0].1, REP_ACK);
    }

    #[test]
    fn malformed_negotiation_closes() {
        let ex = export();
        let mut s = Session::new();
        assert!(matches!(
            s.step(&[0, 0, 0, 4], &ex, &mut Vec::new()),
            Step::Close(_)
        ));
        let mut s = negotiated(1);
        let mut msg = option(OPT_GO, &[]);
        msg[0] ^= 1;
        assert!(matches!(s.step(&msg, &ex, &mut Vec::new()), Step::Close(_)));
        let mut s = negotiated(1);
        let mut msg = option(OPT_GO, &[]);
        msg[12..16].copy_from_slice(&(MAX_OPTION_BYTES + 1).to_be_bytes());
        assert!(matches!(s.step(&msg, &ex, &mut Vec::new()), Step::Close(_)));
        // Non-fixed newstyle: only EXPORT_NAME.
        let mut s = negotiated(0);
        assert!(matches!(
            s.step(&option(OPT_LIST, &[]), &ex, &mut Vec::new()),
            Step::Close(_)
        ));
        // A client that never chooses.
        let mut s = negotiated(1);
        let msg = option(OPT_LIST, &[]);
        for _ in 0..MAX_OPTIONS {
            assert!(matches!(
                s.step(&msg, &ex, &mut Vec::new()),
                Step::Handled(_)
            ));
        }
        assert!(matches!(s.step(&msg, &ex, &mut Vec::new()), Step::Close(_)));
    }

    fn req(flags: u16, cmd: u16, offset: u64, len: u32) -> Vec<u8> {
        let mut v = REQUEST_MAGIC.to_be_bytes().to_vec();
        v.extend_from_slice(&flags.to_be_bytes());
        v.extend_from_slice(&cmd.to_be_bytes());
        v.extend_from_slice(&7u64.to_be_bytes());
        v.extend_from_slice(&offset.to_be_bytes());
        v.extend_from_slice(&len.to_be_bytes());
        v
    }

    #[test]
    fn requests_parse_with_their_payload() {
        let ex = export();
        let mut s = negotiated(3);
        s.step(&option(OPT_GO, &go_data("", &[])), &ex, &mut Vec::new());
        let mut w = req(CMD_FLAG_FUA, CMD_WRITE, 4096, 8);
        w.extend_from_slice(&[1; 8]);
        assert_eq!(s.step(&w[..30], &ex, &mut Vec::new()), Step::More);
        let Step::Request(n, r) = s.step(&w, &ex, &mut Vec::new()) else {
            panic!()
        };
        assert_eq!(
            (n, r.cmd, r.flags, r.offset, r.len, r.handle),
            (36, 1, 1, 4096, 8, 7)
        );
        let rd = req(0, CMD_READ, 0, 4096);
        assert!(matches!(
            s.step(&rd, &ex, &mut Vec::new()),
            Step::Request(28, _)
        ));
        let mut bad = rd.clone();
        bad[0] = 0;
        assert!(matches!(s.step(&bad, &ex, &mut Vec::new()), Step::Close(_)));
        let big = req(0, CMD_WRITE, 0, ex.max_payload + 1);
        assert!(matches!(s.step(&big, &ex, &mut Vec::new()), Step::Close(_)));
    }

    #[test]
    fn message_lengths_are_known_once_the_header_is_there() {
        let ex = export();
        let s = Session::new();
        assert_eq!(s.message_len(&[], ex.max_payload), Some(4));
        let mut s = negotiated(1);
        let msg = option(OPT_LIST, &[0; 100]);
        assert_eq!(s.message_len(&msg[..15], ex.max_payload), None);
        assert_eq!(s.message_len(&msg[..16], ex.max_payload), Some(116));
        let mut big = option(OPT_LIST, &[]);
        big[12..16].copy_from_slice(&(MAX_OPTION_BYTES + 1).to_be_bytes());
        assert_eq!(s.message_len(&big, ex.max_payload), None, "refused by step");
        s.step(&option(OPT_GO, &go_data("", &[])), &ex, &mut Vec::new());
        assert_eq!(
            s.message_len(&req(0, CMD_READ, 0, 1 << 20), ex.max_payload),
            Some(28)
        );
        let w = req(0, CMD_WRITE, 0, 4096);
        assert_eq!(s.message_len(&w[..27], ex.max_payload), None);
        assert_eq!(s.message_len(&w, ex.max_payload), Some(28 + 4096));
        let w = req(0, CMD_WRITE, 0, ex.max_payload + 1);
        assert_eq!(s.message_len(&w, ex.max_payload), None);
    }

    #[test]
    fn checks_give_the_documented_errors() {
        let ex = export();
        let r = |flags, cmd, offset, len| Request {
            flags,
            cmd,
            handle: 1,
            offset,
            len,
        };
        assert_eq!(check(&r(0, CMD_READ, 0, 4096), &ex), None);
        assert_eq!(
            check(&r(0, CMD_READ, ex.size - 512, 1024), &ex),
            Some(EINVAL)
        );
        assert_eq!(check(&r(0, CMD_READ, u64::MAX, 1), &ex), Some(EINVAL));
        for cmd in [CMD_READ, CMD_WRITE, CMD_TRIM, CMD_WRITE_ZEROES] {
            assert_eq!(check(&r(0, cmd, 0, 0), &ex), Some(EINVAL), "0 bytes");
        }
        assert_eq!(check(&r(0, CMD_WRITE, ex.size, 1), &ex), Some(ENOSPC));
        assert_eq!(
            check(&r(0, CMD_WRITE_ZEROES, ex.size, 1), &ex),
            Some(ENOSPC)
        );
        assert_eq!(check(&r(0, CMD_TRIM, ex.size, 1), &ex), Some(EINVAL));
        assert_eq!(
            check(&r(0, 5, 0, 0), &ex),
            Some(EINVAL),
            "CACHE is not offered"
        );
        assert_eq!(check(&r(0, 42, 0, 0), &ex), Some(EINVAL));
        assert_eq!(
            check(&r(CMD_FLAG_NO_HOLE, CMD_WRITE, 0, 512), &ex),
            Some(EINVAL)
        );
        assert_eq!(
            check(&r(CMD_FLAG_NO_HOLE, CMD_WRITE_ZEROES, 0, 512), &ex),
            None
        );
        assert_eq!(check(&r(CMD_FLAG_FUA, CMD_FLUSH, 0, 0), &ex), None);
        assert_eq!(check(&r(0, CMD_FLUSH, 0, 1), &ex), Some(EINVAL));
    }
}
