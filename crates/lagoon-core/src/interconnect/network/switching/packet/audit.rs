//! A test's audit of packet switching: every flit's moves into and out of every buffer,
//! checked against the buffers' capacities without trusting the credit bookkeeping.

use super::super::super::Network;
use crate::time::Ps;

/// A test's record of every flit entering and leaving every buffer, checked afterwards
/// against the buffers' capacities without trusting the credit bookkeeping.
#[derive(Default)]
pub struct Audit {
    /// Runs moved by the last transfer.
    pub(crate) runs: Vec<(Ps, u32)>,
    /// (buffer: input VC i, or inputs + output VC o; time; flits; +1 in / -1 out).
    pub moves: Vec<(u32, Ps, u32, i8)>,
}

impl Network {
    /// Log the runs of the last transfer: leaving buffer `from` when they move, entering
    /// buffer `to.0` `to.1` later (buffers numbered as in `moves`).
    #[inline]
    pub(crate) fn audit_moves(&mut self, from: Option<u32>, to: Option<(u32, Ps)>) {
        if self.audit.is_some() {
            self.audit_log(from, to);
        }
    }

    fn audit_log(&mut self, from: Option<u32>, to: Option<(u32, Ps)>) {
        let f = self.p.flit_time;
        let Some(a) = self.audit.as_mut() else {
            return;
        };
        for &(s, m) in &a.runs {
            for k in 0..m as Ps {
                if let Some(b) = from {
                    a.moves.push((b, s + k * f, 1, -1));
                }
                if let Some((b, d)) = to {
                    a.moves.push((b, s + d + k * f, 1, 1));
                }
            }
        }
        a.runs.clear();
    }

    /// Check the audit: no buffer ever held more flits than its capacity, and every credit
    /// is accounted for (`avail + credits = capacity` in every buffer).
    /// Every credit accounted for: `avail + credits = capacity` in every buffer.
    #[cfg(test)]
    pub(crate) fn audit_credits(&self) -> Result<(), String> {
        let fab = &self.fab;
        for (k, b) in fab.inb.iter().chain(&fab.outb).enumerate() {
            if b.avail.total() + b.credit.total() != b.cap {
                return Err(format!(
                    "buffer {k}: {} flits + {} credits != capacity {}",
                    b.avail.total(),
                    b.credit.total(),
                    b.cap
                ));
            }
        }
        Ok(())
    }

    #[cfg(test)]
    pub(crate) fn audit_check(&self) -> Result<(), String> {
        self.audit_credits()?;
        let fab = &self.fab;
        let Some(a) = &self.audit else {
            return Ok(());
        };
        // Buffers are FIFOs: the k-th flit in is the k-th out. Pair them into [in, out)
        // intervals, then sweep (an interval ending at t frees its slot for one starting at t).
        let n_in = fab.inb.len();
        let mut ins: Vec<Vec<Ps>> = vec![Vec::new(); 2 * n_in];
        let mut outs: Vec<Vec<Ps>> = vec![Vec::new(); 2 * n_in];
        for &(b, t, _, d) in &a.moves {
            if d > 0 {
                ins[b as usize].push(t);
            } else {
                outs[b as usize].push(t);
            }
        }
        for b in 0..2 * n_in {
            let cap = if b < n_in {
                fab.inb[b].cap
            } else {
                fab.outb[b - n_in].cap
            };
            let mut edges = Vec::new();
            for (k, &t_in) in ins[b].iter().enumerate() {
                let t_out = outs[b].get(k).copied().unwrap_or(Ps::MAX);
                if t_out < t_in {
                    return Err(format!(
                        "buffer {b}: flit {k} leaves at {t_out} ps before it arrives at {t_in} ps"
                    ));
                }
                if t_out > t_in {
                    edges.push((t_in, 1i64));
                    edges.push((t_out, -1));
                }
            }
            if outs[b].len() > ins[b].len() {
                return Err(format!("buffer {b}: more flits out than in"));
            }
            edges.sort();
            let mut held = 0;
            for (t, d) in edges {
                held += d;
                if held > cap as i64 {
                    return Err(format!(
                        "buffer {b} holds {held} flits at {t} ps (capacity {cap})"
                    ));
                }
            }
        }
        Ok(())
    }
}
