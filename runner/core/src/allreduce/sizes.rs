//! The message sizes of an all-reduce sweep, in bytes of f32 data: by
//! default every power of two from 8 B (two floats, the latency end) to
//! 4 GiB (where NVLink's plateau shows, ../shared/briefs/multigpu.md), or
//! a list the user gives (`--sizes 8..256MiB,1000`), and whether a size
//! fits in a GPU's free memory.

use std::fmt;

/// The smallest message of the default sweep.
pub const MIN_BYTES: u64 = 8;
/// The largest message of the default sweep.
pub const MAX_BYTES: u64 = 4 << 30;
/// Device memory left free beside a size's input and output buffers, for
/// NCCL's own buffers and the kernels' modules.
pub const HEADROOM_BYTES: u64 = 512 << 20;

/// Why a size list could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SizeListError {
    /// Nothing to sweep.
    #[error("the size list is empty")]
    Empty,
    /// A size that is not a byte count.
    #[error(
        "`{0}` is not a byte count: write 1000, 8B, 64KiB, 256MiB, 4GiB or 2^20 (K, M and G are binary too)"
    )]
    Unreadable(String),
    /// A size that is not a whole number of f32 elements.
    #[error("{0} B is not a whole number of floats: sizes are multiples of 4 bytes")]
    NotWholeFloats(u64),
    /// A range whose ends are not powers of two, or run backwards.
    #[error("`{0}`: a range runs from a power of two up to a larger one, e.g. 8..256MiB")]
    BadRange(String),
}

/// The default sweep: every power of two from [`MIN_BYTES`] to
/// [`MAX_BYTES`].
pub fn default_sweep() -> Vec<u64> {
    powers_of_two(MIN_BYTES, MAX_BYTES)
}

/// Every power of two from `low` to `high`, both powers of two.
fn powers_of_two(low: u64, high: u64) -> Vec<u64> {
    std::iter::successors(Some(low), |b| b.checked_mul(2))
        .take_while(|b| *b <= high)
        .collect()
}

/// Reads a comma-separated list of byte counts and ranges `A..B` (every
/// power of two from A to B), sorted and without repeats.
pub fn parse_list(text: &str) -> Result<Vec<u64>, SizeListError> {
    let mut sizes = Vec::new();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if let Some((low, high)) = item.split_once("..") {
            let (low, high) = (parse_bytes(low)?, parse_bytes(high)?);
            if !low.is_power_of_two() || !high.is_power_of_two() || low > high {
                return Err(SizeListError::BadRange(item.to_string()));
            }
            sizes.extend(powers_of_two(low, high));
        } else {
            sizes.push(parse_bytes(item)?);
        }
    }
    if sizes.is_empty() {
        return Err(SizeListError::Empty);
    }
    if let Some(odd) = sizes.iter().find(|b| **b == 0 || *b % 4 != 0) {
        return Err(SizeListError::NotWholeFloats(*odd));
    }
    sizes.sort_unstable();
    sizes.dedup();
    Ok(sizes)
}

/// One byte count: `1000`, `8B`, `64KiB`, `256MiB`, `4GiB` (`K`, `M`, `G`
/// alone are binary too) or `2^20`.
pub fn parse_bytes(text: &str) -> Result<u64, SizeListError> {
    let err = || SizeListError::Unreadable(text.trim().to_string());
    let t = text.trim().replace('_', "");
    if let Some(exp) = t.strip_prefix("2^") {
        let exp: u32 = exp.parse().map_err(|_| err())?;
        return 2u64.checked_pow(exp).ok_or_else(err);
    }
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let number: u64 = number.parse().map_err(|_| err())?;
    let shift = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kib" => 10,
        "m" | "mib" => 20,
        "g" | "gib" => 30,
        _ => return Err(err()),
    };
    number.checked_mul(1 << shift).ok_or_else(err)
}

/// A byte count as the sweep's lines show it: `8 B`, `64 KiB`, `4 GiB`,
/// or `1.5 MiB` between powers.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if value.fract() == 0.0 {
        format!("{value} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// A size that does not fit in a GPU's free memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoRoom {
    /// The message, bytes.
    pub bytes: u64,
    /// What it needs on every GPU: input, output and [`HEADROOM_BYTES`].
    pub need: u64,
    /// The least free memory over the GPUs.
    pub free: u64,
}

impl fmt::Display for NoRoom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "skipped {}: needs {} on every GPU (input, output and {} headroom), {} free on the fullest",
            format_bytes(self.bytes),
            format_bytes(self.need),
            format_bytes(HEADROOM_BYTES),
            format_bytes(self.free)
        )
    }
}

/// Whether a message of `bytes` fits on GPUs whose least free memory is
/// `free`: every rank holds its input and its output.
pub fn fits(bytes: u64, free: u64) -> Result<(), NoRoom> {
    let need = 2 * bytes + HEADROOM_BYTES;
    if need <= free {
        Ok(())
    } else {
        Err(NoRoom { bytes, need, free })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The default sweep runs over every power of two from 8 B to 4 GiB.
    #[test]
    fn default_sweep_is_every_power_of_two_from_8_bytes_to_4_gib() {
        let sweep = default_sweep();
        assert_eq!(sweep.first(), Some(&8));
        assert_eq!(sweep.last(), Some(&(4u64 << 30)));
        assert_eq!(sweep.len(), 30);
        assert!(sweep.windows(2).all(|w| w[1] == 2 * w[0]));
    }

    // Every spelling the help text offers reads as the bytes it names.
    #[test]
    fn byte_counts_read_in_every_documented_spelling() {
        for (text, bytes) in [
            ("1000", 1000),
            ("8B", 8),
            ("64KiB", 64 << 10),
            ("64k", 64 << 10),
            ("256MiB", 256 << 20),
            ("4GiB", 4 << 30),
            ("2^20", 1 << 20),
            (" 1_024 ", 1024),
        ] {
            assert_eq!(parse_bytes(text), Ok(bytes), "{text}");
        }
        assert!(parse_bytes("12 furlongs").is_err());
        assert!(parse_bytes("2^70").is_err());
    }

    // A range expands to its powers of two; lists are sorted and deduplicated.
    #[test]
    fn lists_and_ranges_expand_sorted_without_repeats() {
        assert_eq!(
            parse_list("8..64, 1000, 16").unwrap(),
            vec![8, 16, 32, 64, 1000]
        );
        assert_eq!(parse_list("8..256MiB").unwrap().len(), 26);
    }

    // Sizes that are not whole floats, backwards or odd ranges and empty
    // lists are refused with their own message.
    #[test]
    fn bad_lists_are_refused() {
        assert_eq!(parse_list("6"), Err(SizeListError::NotWholeFloats(6)));
        assert_eq!(parse_list("0"), Err(SizeListError::NotWholeFloats(0)));
        assert_eq!(
            parse_list("64..8"),
            Err(SizeListError::BadRange("64..8".into()))
        );
        assert_eq!(
            parse_list("8..100"),
            Err(SizeListError::BadRange("8..100".into()))
        );
        assert_eq!(parse_list(" , "), Err(SizeListError::Empty));
    }

    // A size fits when input, output and the headroom fit in the free memory.
    #[test]
    fn a_size_fits_when_input_output_and_headroom_do() {
        let bytes = 1 << 30;
        assert!(fits(bytes, 2 * bytes + HEADROOM_BYTES).is_ok());
        let no = fits(bytes, 2 * bytes).unwrap_err();
        assert_eq!(no.need, 2 * bytes + HEADROOM_BYTES);
        assert_eq!(
            no.to_string(),
            "skipped 1 GiB: needs 2.5 GiB on every GPU (input, output and 512 MiB headroom), 2 GiB free on the fullest"
        );
    }

    // Byte counts print in the largest binary unit, with one decimal between powers.
    #[test]
    fn bytes_print_in_binary_units() {
        assert_eq!(format_bytes(8), "8 B");
        assert_eq!(format_bytes(4 << 30), "4 GiB");
        assert_eq!(format_bytes(3 << 19), "1.5 MiB");
    }
}
