//! `[host]`: the NVMe over PCIe host interface (MQSim-class).

use super::declare::section;
use super::schema::Range;

section! {
    /// NVMe over PCIe (MQSim-class host interface).
    pub struct HostInterfaceConfig = "host" {
        /// Per-lane PCIe bandwidth, GB/s (Gen4: ~2 GB/s, Venice Table 1 "8 GB/s, 4-lane Gen4").
        pcie_lane_gb_s: f64 = 2.0, "GB/s", Range::real(0.001, 1e5);
        /// PCIe lanes (Venice Table 1: 4).
        pcie_lanes: u32 = 4, "lanes", Range::int(1, 1024);
        /// NVMe I/O submission queue depth per flow: at most this many of a flow's requests are
        /// inside the device at once; the rest wait in the host (the Venice authors' MQSim
        /// setup, validation/mqsim: 65535). NVMe: at most 65,536 entries per queue.
        io_queue_depth: u32 = 65535, "requests", Range::int(1, 65_536);
        /// Most requests (over all flows) the controller holds at once; further submission
        /// queue entries wait to be fetched (MQSim's Queue_Fetch_Size; validation/mqsim: 512).
        fetch_size: u32 = 512, "requests", Range::int(1, 65_536);
        /// Largest PCIe transaction-layer packet payload, bytes (PCIe 4.0 Max_Payload_Size 128 B,
        /// as hosts commonly configure it; at most 4096 B).
        pcie_max_payload_bytes: u32 = 128, "bytes", Range::int(1, 4096);
        /// Per-packet overhead on the wire: TLP header, sequence number, LCRC and framing, bytes
        /// (16 + 2 + 4 + framing, PCIe 4.0 §2-§4).
        pcie_packet_overhead_bytes: u32 = 28, "bytes", Range::int(0, 4096);
        /// NVMe submission queue entry size (NVMe 1.4 §4.2: 64 B) fetched over PCIe per command.
        sqe_bytes: u32 = 64, "bytes", Range::int(0, 4096);
        /// NVMe completion queue entry size (NVMe 1.4 §4.6: 16 B) posted over PCIe per command.
        cqe_bytes: u32 = 16, "bytes", Range::int(0, 4096);
    }
}
