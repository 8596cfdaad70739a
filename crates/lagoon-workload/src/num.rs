//! Allocation-free number parsing shared by the trace parsers and the synthetic spec.

/// Whether `s` is a non-empty run of ASCII digits (of any length: it may not fit a `u64`).
pub(crate) fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Parses an unsigned decimal integer (no sign, no separators).
pub(crate) fn parse_u64(s: &str) -> Option<u64> {
    if !is_digits(s) {
        return None;
    }
    s.parse().ok()
}

/// Parses an unsigned integer that must fit in `u32`.
pub(crate) fn parse_u32(s: &str) -> Option<u32> {
    parse_u64(s).and_then(|v| u32::try_from(v).ok())
}

/// Parses a non-negative decimal number and multiplies it by `10^scale`, exactly
/// when the input is plain decimal (`123`, `0.000123`, `.5`, `7.`): digits beyond
/// the scale are rounded half up. Exponent forms (`1.5e3`) go through `f64`.
/// Returns `None` for anything else (signs, NaN, infinities, overflow).
pub(crate) fn parse_scaled(s: &str, scale: u32) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    if s.bytes().any(|b| b == b'e' || b == b'E') {
        if !s
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'-' | b'+'))
            || s.starts_with(['-', '+'])
        {
            return None;
        }
        let v: f64 = s.parse().ok()?;
        let scaled = v * 10f64.powi(scale as i32);
        if !scaled.is_finite() || !(0.0..1.8e19).contains(&scaled) {
            return None;
        }
        return Some(scaled.round() as u64);
    }
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, f),
        None => (s, ""),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut v: u64 = 0;
    for b in int.bytes() {
        v = v.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    let fb = frac.as_bytes();
    for i in 0..scale as usize {
        let d = fb.get(i).map_or(0, |b| u64::from(b - b'0'));
        v = v.checked_mul(10)?.checked_add(d)?;
    }
    if fb.get(scale as usize).is_some_and(|&b| b >= b'5') {
        v = v.checked_add(1)?;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_decimal_is_exact() {
        assert_eq!(parse_scaled("223.412", 6), Some(223_412_000));
        assert_eq!(parse_scaled("0.000", 6), Some(0));
        assert_eq!(parse_scaled("12", 3), Some(12_000));
        assert_eq!(parse_scaled(".5", 1), Some(5));
        assert_eq!(parse_scaled("7.", 0), Some(7));
        assert_eq!(parse_scaled("1.25", 1), Some(13));
        assert_eq!(parse_scaled("1.24", 1), Some(12));
        assert_eq!(parse_scaled("1.5e3", 0), Some(1500));
        assert_eq!(parse_scaled("0.000003237", 9), Some(3237));
        for bad in [
            "", ".", "-1", "+1", "1.2.3", "abc", "1e400", "inf", "NaN", "1,5", "-1e3",
        ] {
            assert_eq!(parse_scaled(bad, 3), None, "{bad}");
        }
        assert_eq!(parse_scaled("99999999999999999999", 0), None);
    }

    #[test]
    fn integers() {
        assert_eq!(parse_u64("42"), Some(42));
        assert_eq!(parse_u64("+42"), None);
        assert_eq!(parse_u64(""), None);
        assert_eq!(parse_u32("4294967296"), None);
    }
}
