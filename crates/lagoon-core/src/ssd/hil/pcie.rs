//! Host interface: the PCIe link between host and controller, one FIFO per direction.
//!
//! A message of P payload bytes travels as packets of at most `pcie_max_payload_bytes`, each
//! with `pcie_packet_overhead_bytes` of header and framing, over `pcie_lanes` lanes at
//! `pcie_lane_gb_s` each. The NVMe submission/completion queues themselves live in the
//! simulator (they are lists of requests).

use crate::config::HostInterfaceConfig;
use crate::time::{transfer_time, Ps};

pub struct PcieLink {
    bytes_per_s: f64,
    max_payload: u64,
    overhead: u64,
    down_free: Ps,
    up_free: Ps,
    pub busy_down: Ps,
    pub busy_up: Ps,
}

impl PcieLink {
    pub fn new(c: &HostInterfaceConfig) -> Self {
        Self {
            bytes_per_s: c.pcie_lane_gb_s * 1e9 * c.pcie_lanes as f64,
            max_payload: c.pcie_max_payload_bytes as u64,
            overhead: c.pcie_packet_overhead_bytes as u64,
            down_free: 0,
            up_free: 0,
            busy_down: 0,
            busy_up: 0,
        }
    }

    /// Bytes on the wire for a message of `payload` bytes.
    pub fn wire_bytes(&self, payload: u64) -> u64 {
        let packets = payload.div_ceil(self.max_payload).max(1);
        payload + packets * self.overhead
    }

    fn duration(&self, payload: u32) -> Ps {
        transfer_time(self.wire_bytes(payload as u64), self.bytes_per_s)
    }

    /// Host → controller transfer that can start at `at`; returns its end.
    pub fn to_device(&mut self, at: Ps, payload: u32) -> Ps {
        let d = self.duration(payload);
        let start = at.max(self.down_free);
        self.down_free = start + d;
        self.busy_down += d;
        self.down_free
    }

    /// Controller → host transfer that can start at `at`; returns its end.
    pub fn to_host(&mut self, at: Ps, payload: u32) -> Ps {
        let d = self.duration(payload);
        let start = at.max(self.up_free);
        self.up_free = start + d;
        self.busy_up += d;
        self.up_free
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn packetized_transfer_time() {
        let mut l = PcieLink::new(&HostInterfaceConfig::default());
        // 4096 B = 32 packets of 128 B + 28 B overhead = 4992 B at 8 GB/s = 624 ns
        assert_eq!(l.wire_bytes(4096), 4992);
        assert_eq!(l.to_host(0, 4096), 624_000);
        // FIFO: the next message waits for the first
        assert_eq!(l.to_host(100_000, 16), 624_000 + 5_500);
        assert_eq!(l.to_device(0, 64), 11_500);
    }
}
