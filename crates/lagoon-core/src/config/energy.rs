//! `[energy]`: the energy and area model's constants (see [`crate::energy`]).

use super::declare::section;
use super::schema::Range;

/// Energy and area constants: finite and non-negative (a zero switches a term off).
const ENERGY: Range = Range::real(0.0, 1e12);

section! {
    /// Energy and area model (Venice §5, §6.4, §6.6, Table 4, footnote 7); see [`crate::energy`].
    /// Powers in mW, currents in mA, areas in mm² or in units of one shared flash channel's area.
    pub struct EnergyConfig = "energy" {
        /// Flash supply voltage VCC, V (ONFI 3.3 V NAND: VCC 2.7 / 3.3 / 3.6 V, Micron MT29F 4-16Gb
        /// datasheet, Table 12).
        flash_vcc_v: f64 = 3.3, "V", ENERGY;
        /// Array read current (ICC1) while a plane reads a page for tR, mA (Samsung K9F56xx: ICC
        /// 20-25 mA; Venice's SZ985 values are unpublished).
        read_current_ma: f64 = 25.0, "mA", ENERGY;
        /// Array program current (ICC2) while a plane programs a page for tPROG, mA (Samsung K9F56xx
        /// rev 2.0: ICC2 max raised 20 -> 25 mA).
        program_current_ma: f64 = 25.0, "mA", ENERGY;
        /// Array erase current (ICC3) while a block erases for tBERS, mA (Samsung K9F56xx rev 2.0:
        /// ICC3 max raised 20 -> 25 mA).
        erase_current_ma: f64 = 25.0, "mA", ENERGY;
        /// Power of a shared channel bus while it carries a transfer, mW (Venice §6.6: a link
        /// uses 90 % less power than a shared channel bus, so 10 × `link_mw`).
        bus_mw: f64 = 10.8, "mW", ENERGY;
        /// Power of a mesh link while it carries a transfer, mW (Venice Table 4: 1.08 mW per link
        /// during a 4 KB page transfer, ORION 3.0).
        link_mw: f64 = 1.08, "mW", ENERGY;
        /// Power of one Venice router chip, always on, mW (Venice Table 4: 0.241 mW, UMC 65 nm
        /// synthesis).
        router_mw: f64 = 0.241, "mW", ENERGY;
        /// Power of one NoSSD router (buffered, packet-switched, in the flash chip), always on, mW
        /// (derived: 64 NoSSD routers draw ~1 % of `static_mw` more than Venice's, §6.4).
        nossd_router_mw: f64 = 1.0, "mW", ENERGY;
        /// Static power of the drive (controller, DRAM, PCIe, flash standby) over the whole run, mW
        /// (an assumption: active idle of an enterprise NVMe drive; Venice gives no number).
        static_mw: f64 = 5000.0, "mW", ENERGY;
        /// PCB area of one Venice router chip with its 40 I/O pads, mm² (Venice §6.6: pads of 0.2 mm
        /// + 0.2 mm spacing, ~8 mm²).
        router_area_mm2: f64 = 8.0, "mm2", ENERGY;
        /// Area of one flash chip, mm² (Venice §6.6: a typical 100 mm² NAND chip).
        flash_chip_area_mm2: f64 = 100.0, "mm2", Range::above(0.0, 1e12);
        /// Area of one mesh link in units of one shared channel's area (Venice Table 4, footnote 7:
        /// 0.04).
        link_area_channels: f64 = 0.04, "channel areas", ENERGY;
    }
}
