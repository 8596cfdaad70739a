//! Every existing `syn:` spec keeps its generated stream byte for byte (issue 16 extended
//! the language): a fingerprint of the requests of specs covering every size, address and
//! arrival kind and every preset, recorded before the extension.

use lagoon_workload::{msr_stand_ins, preset_names, SyntheticGenerator, SyntheticSpec};

/// FNV-1a over every field of every request.
fn fingerprint(spec: &str, capacity: u64, seed: u64) -> u64 {
    let spec = SyntheticSpec::parse(spec).unwrap();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for r in SyntheticGenerator::new(&spec, capacity, seed).unwrap() {
        for v in [
            r.arrival_ns,
            r.offset_bytes,
            u64::from(r.size_bytes),
            r.op as u64,
            u64::from(r.device),
        ] {
            for b in v.to_le_bytes() {
                h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
    h
}

const SPECS: [&str; 8] = [
    "syn:count=3000",
    "syn:read=55.5,size=uniform:4k-64k,addr=hotcold,arrival=poisson:20us,count=3000",
    "syn:read=10,size=uniform:512-7k,addr=hotcold:90/5,align=512,arrival=bursty:58us/4,count=3000",
    "syn:size=choice:4k@70/16k@20/128k@10,addr=seq,arrival=fixed:3us,count=3000,span=1g",
    "syn:read=100,size=8k,addr=uniform,align=8k,arrival=qd:8,count=3000",
    "syn:read=0,size=choice:4k/8k/12k,addr=hotcold:80/20,arrival=bursty:1ms,count=3000",
    "syn:read=30,size=64k,addr=seq,arrival=poisson:0.5us,count=3000,span=64m",
    "syn:read=70,size=uniform:4k-1m,arrival=bursty:21063ns/6.25,count=3000",
];

#[test]
fn existing_specs_generate_the_same_stream() {
    let mut got = Vec::new();
    for s in SPECS {
        got.push((s.to_string(), fingerprint(s, 1 << 36, 7)));
    }
    for p in preset_names()
        .iter()
        .copied()
        .chain(msr_stand_ins().iter().map(|t| t.name))
    {
        if let Ok(spec) = SyntheticSpec::parse(&format!("syn:{p},count=2000")) {
            got.push((p.to_string(), fingerprint(&spec.to_string(), 1 << 36, 3)));
        }
    }
    let text: Vec<String> = got.iter().map(|(s, h)| format!("{s} {h:016x}")).collect();
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/syn_golden.txt");
    if std::env::var_os("LAGOON_BLESS").is_some() {
        std::fs::write(file, text.join("\n") + "\n").unwrap();
    }
    let want = std::fs::read_to_string(file).unwrap();
    assert_eq!(text.join("\n") + "\n", want);
}
