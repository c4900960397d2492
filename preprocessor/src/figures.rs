//! How measured figures read on a page: times with 3-4 significant digits
//! in a unit that fits, bandwidths, percentages, errors in scientific
//! notation, ratios and dates. Panels and directives both use these, so a
//! number reads the same wherever it appears.

/// A time given in microseconds: `251.2 µs`, `1.234 ms`, `12.35 s`.
pub fn time_us(us: f64) -> String {
    if !us.is_finite() {
        return "n/a".into();
    }
    let mut value = us;
    let mut unit = "µs";
    for next in ["ms", "s"] {
        // Switch unit when the value would round to 1000 or more.
        if value.abs() < 999.95 {
            break;
        }
        value /= 1000.0;
        unit = next;
    }
    format!("{} {unit}", significant(value))
}

/// A range of times in one unit when both share it: `249.9–262.1 µs`,
/// else `999.1 µs – 1.020 ms`.
pub fn time_range_us(min: f64, max: f64) -> String {
    let (low, high) = (time_us(min), time_us(max));
    match (low.split_once(' '), high.split_once(' ')) {
        (Some((a, unit_a)), Some((b, unit_b))) if unit_a == unit_b => format!("{a}–{b} {unit_a}"),
        _ => format!("{low} – {high}"),
    }
}

/// A time in microseconds as a number alone, for table cells under a `µs`
/// heading: `6.048`, `251.2`, `1234`.
pub fn us_number(us: f64) -> String {
    if !us.is_finite() {
        return "n/a".into();
    }
    if us.abs() >= 999.95 {
        format!("{us:.0}")
    } else {
        significant(us)
    }
}

/// Three or four significant digits: `251.2`, `12.35`, `1.234`, `0.512`.
fn significant(v: f64) -> String {
    let decimals = if v.abs() >= 99.995 {
        1
    } else if v.abs() >= 9.9995 {
        2
    } else {
        3
    };
    format!("{v:.decimals$}")
}

/// A bandwidth in GB/s: `4275 GB/s`, `85.3 GB/s`.
pub fn gbs(v: f64) -> String {
    format!("{} GB/s", gbs_number(v))
}

/// A rate of the open metrics map in words: `elements_per_s` at 4.2e11
/// is `420 G elements/s`.
pub fn rate(name: &str, per_s: f64) -> String {
    let unit = name.strip_suffix("_per_s").unwrap_or(name);
    if !per_s.is_finite() {
        return format!("n/a {unit}/s");
    }
    let (scaled, prefix) = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]
        .into_iter()
        .find(|(f, _)| per_s >= *f)
        .map_or((per_s, ""), |(f, p)| (per_s / f, p));
    let digits = if scaled >= 100.0 {
        0
    } else if scaled >= 10.0 {
        1
    } else {
        2
    };
    format!("{scaled:.digits$} {prefix} {unit}/s").replace("  ", " ")
}

/// A rate in TFLOP/s: `51.3 TFLOP/s`, `0.812 TFLOP/s`.
pub fn tflops(v: f64) -> String {
    if !v.is_finite() {
        return "n/a TFLOP/s".into();
    }
    format!("{} TFLOP/s", significant(v))
}

/// A time per access in nanoseconds: `612.3 ns`, `32.10 ns`.
pub fn ns(v: f64) -> String {
    if !v.is_finite() {
        return "n/a ns".into();
    }
    format!("{} ns", significant(v))
}

/// A count of SM cycles: `1183 cycles`, `33.2 cycles`.
pub fn cycles(v: f64) -> String {
    if !v.is_finite() {
        return "n/a cycles".into();
    }
    if v.abs() >= 999.5 {
        format!("{v:.0} cycles")
    } else {
        format!("{} cycles", significant(v))
    }
}

/// Any figure of a size by its name (`cuda_measured_core::figures::value`
/// gives the number), read as its kind reads: `tflops`, `ns_per_access`,
/// `cycles_per_access`, `gbs`, percentages, times, rates of `metrics`.
pub fn named(name: &str, v: f64) -> String {
    match name {
        "time" => time_us(v),
        "hot" => format!("{} (hot)", time_us(v)),
        "gbs" => gbs(v),
        "pct_peak" | "pct_ceiling" => percent(v),
        "spread" => spread(v),
        "samples" => format!("{v:.0}"),
        "error" => error(v),
        "tflops" => tflops(v),
        "ns_per_access" => ns(v),
        "cycles_per_access" => cycles(v),
        other => rate(other, v),
    }
}

/// A bandwidth's number alone, for table cells under a `GB/s` heading.
pub fn gbs_number(v: f64) -> String {
    if !v.is_finite() {
        return "n/a".into();
    }
    let decimals = if v.abs() >= 99.95 {
        0
    } else if v.abs() >= 9.995 {
        1
    } else {
        2
    };
    format!("{v:.decimals$}")
}

/// A percentage given as a percentage: `89.1%`, `1.2%`; below 1% with
/// the digits a small share needs, two significant ones (`0.16%`,
/// `0.034%`), never `0.0%` for a share that is not zero.
pub fn percent(v: f64) -> String {
    if !v.is_finite() {
        return "n/a".into();
    }
    if v == 0.0 {
        return "0%".into();
    }
    let decimals = if v.abs() >= 0.995 {
        1
    } else {
        // Two significant digits: 0.16 → 2 decimals, 0.034 → 3.
        (1 - v.abs().log10().floor() as i32).clamp(2, 12) as usize
    };
    format!("{v:.decimals$}%")
}

/// A fraction shown as a percentage: `0.012` → `1.2%`.
pub fn fraction_as_percent(v: f64) -> String {
    percent(v * 100.0)
}

/// A relative spread (a fraction) as a percentage with two significant
/// digits, so small spreads keep their size: `0.0034` → `0.34%`,
/// `0.031` → `3.1%`, `0.126` → `13%`.
pub fn spread(fraction: f64) -> String {
    let v = fraction * 100.0;
    if !v.is_finite() {
        return "n/a".into();
    }
    let decimals = if v.abs() >= 9.95 {
        0
    } else if v.abs() >= 0.995 {
        1
    } else {
        2
    };
    format!("{v:.decimals$}%")
}

/// A signed difference in percent, two decimals: `+0.31%`, `−1.20%`.
pub fn signed_percent(v: f64) -> String {
    if !v.is_finite() {
        return "n/a".into();
    }
    let text = format!("{:.2}", v.abs());
    let sign = if text.chars().all(|c| c == '0' || c == '.') {
        "±"
    } else if v < 0.0 {
        "−"
    } else {
        "+"
    };
    format!("{sign}{text}%")
}

/// A CUB version as CUB defines it (`major * 100000 + minor * 100 +
/// patch`): `300001` → `3.0.1`. Anything else shows as written.
pub fn cub_version(text: &str) -> String {
    match text.trim().parse::<u64>() {
        Ok(v) if v >= 100_000 => format!("{}.{}.{}", v / 100_000, v / 100 % 1000, v % 100),
        _ => text.to_string(),
    }
}

/// An error against the reference in C-style scientific notation:
/// `3.1e-08`, `0` for exact.
pub fn error(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    if !v.is_finite() {
        return if v.is_nan() {
            "NaN".into()
        } else {
            "inf".into()
        };
    }
    let rust = format!("{v:.1e}");
    let (mantissa, exponent) = rust.split_once('e').expect("scientific notation has an e");
    let exponent: i32 = exponent.parse().expect("exponent is an integer");
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.abs())
}

/// A ratio of two times: `2.13×`.
pub fn ratio(v: f64) -> String {
    if !v.is_finite() {
        return "n/a".into();
    }
    let decimals = if v.abs() >= 99.95 {
        0
    } else if v.abs() >= 9.995 {
        1
    } else {
        2
    };
    format!("{v:.decimals$}×")
}

/// The date of an RFC 3339 time: `2026-05-01T12:00:00Z` → `2026-05-01`.
pub fn date(rfc3339: &str) -> &str {
    let bytes = rfc3339.as_bytes();
    let looks_like_date = bytes.len() >= 10
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && bytes[..10]
            .iter()
            .enumerate()
            .all(|(i, b)| i == 4 || i == 7 || b.is_ascii_digit());
    if looks_like_date {
        &rfc3339[..10]
    } else {
        rfc3339
    }
}

/// `1 GPU`, `2 GPUs`.
pub fn gpu_count(gpus: usize) -> String {
    if gpus == 1 {
        "1 GPU".into()
    } else {
        format!("{gpus} GPUs")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Rates read with an SI prefix and their unit.
    #[test]
    fn rates_read_with_a_prefix() {
        assert_eq!(rate("elements_per_s", 4.2e11), "420 G elements/s");
        assert_eq!(rate("rows_per_s", 1.5e8), "150 M rows/s");
        assert_eq!(rate("rows_per_s", 12.0), "12.0 rows/s");
    }

    // Times keep 3-4 significant digits and change unit at 1000.
    #[test]
    fn times() {
        let cases = [
            (251.2, "251.2 µs"),
            (251.24, "251.2 µs"),
            (12.345, "12.35 µs"),
            (1.2, "1.200 µs"),
            (0.5124, "0.512 µs"),
            (999.94, "999.9 µs"),
            (999.96, "1.000 ms"),
            (1234.0, "1.234 ms"),
            (12_345.0, "12.35 ms"),
            (123_456.0, "123.5 ms"),
            (2_500_000.0, "2.500 s"),
            (f64::NAN, "n/a"),
        ];
        for (us, want) in cases {
            assert_eq!(time_us(us), want, "{us}");
        }
    }

    // A range keeps one unit when it can.
    #[test]
    fn time_ranges() {
        assert_eq!(time_range_us(249.87, 262.1), "249.9–262.1 µs");
        assert_eq!(time_range_us(999.1, 1020.0), "999.1 µs – 1.020 ms");
    }

    // Bandwidths, percentages, errors and ratios read as the book prints them.
    #[test]
    fn other_figures() {
        assert_eq!(gbs(4275.4), "4275 GB/s");
        assert_eq!(gbs(85.34), "85.3 GB/s");
        assert_eq!(gbs(3.456), "3.46 GB/s");
        assert_eq!(percent(89.14), "89.1%");
        // Small shares keep two significant digits, zero is zero.
        assert_eq!(percent(0.16), "0.16%");
        assert_eq!(percent(0.0341), "0.034%");
        assert_eq!(percent(0.003), "0.0030%");
        assert_eq!(percent(0.99), "0.99%");
        assert_eq!(percent(0.0), "0%");
        assert_eq!(fraction_as_percent(0.0123), "1.2%");
        assert_eq!(error(3.1e-8), "3.1e-08");
        assert_eq!(error(3.14e-8), "3.1e-08");
        assert_eq!(error(0.0), "0");
        assert_eq!(error(2.5e3), "2.5e+03");
        assert_eq!(error(1.0e-120), "1.0e-120");
        assert_eq!(error(f64::NAN), "NaN");
        assert_eq!(ratio(2.134), "2.13×");
        assert_eq!(ratio(21.34), "21.3×");
        assert_eq!(ratio(213.4), "213×");
    }

    // Table cells, spreads, differences and versions of the comparison pages.
    #[test]
    fn comparison_figures() {
        let cases: [(String, &str); 14] = [
            (us_number(6.047999952), "6.048"),
            (us_number(248.64), "248.6"),
            (us_number(984.256), "984.3"),
            (us_number(1234.4), "1234"),
            (spread(0.0034), "0.34%"),
            (spread(0.031), "3.1%"),
            (spread(0.126), "13%"),
            (signed_percent(0.314), "+0.31%"),
            (signed_percent(-1.2), "−1.20%"),
            (signed_percent(-0.001), "±0.00%"),
            (cub_version("300001"), "3.0.1"),
            (cub_version("200200"), "2.2.0"),
            (cub_version("2.5.0"), "2.5.0"),
            (cub_version("12"), "12"),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
        }
    }

    // Dates come from the stored RFC 3339 time; anything else shows as stored.
    #[test]
    fn dates() {
        assert_eq!(date("2026-05-01T12:00:00Z"), "2026-05-01");
        assert_eq!(date("unknown"), "unknown");
        assert_eq!(date(""), "");
    }
}
