//! The all-reduces a sweep can run, by the names `--impls` takes and the
//! report uses.

use std::fmt;

/// One all-reduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Implementation {
    /// NCCL, input to output.
    Nccl,
    /// NCCL in place (as `torch.distributed.all_reduce` calls it).
    NcclInPlace,
    /// kernels/allreduce/one_shot.cu.
    OneShot,
    /// kernels/allreduce/two_shot.cu.
    TwoShot,
}

impl Implementation {
    /// Every implementation, in the order a sweep runs them.
    pub const ALL: [Implementation; 4] = [
        Implementation::Nccl,
        Implementation::NcclInPlace,
        Implementation::OneShot,
        Implementation::TwoShot,
    ];

    /// The name `--impls` takes and the report uses.
    pub fn name(self) -> &'static str {
        match self {
            Implementation::Nccl => "nccl",
            Implementation::NcclInPlace => "nccl-inplace",
            Implementation::OneShot => "one-shot",
            Implementation::TwoShot => "two-shot",
        }
    }

    /// Whether it needs NCCL's library.
    pub fn uses_nccl(self) -> bool {
        matches!(self, Implementation::Nccl | Implementation::NcclInPlace)
    }

    /// Whether its kernels read other GPUs' memory directly.
    pub fn uses_peer_access(self) -> bool {
        !self.uses_nccl()
    }

    /// Stream commands one all-reduce over `ranks` queues on each rank's
    /// stream, for the timer's queue budget. Ours: a barrier is an event
    /// record and a wait per other rank, two barriers and a launch for the
    /// one-shot, three and two launches for the two-shot. NCCL's own count
    /// is not published; 8 is a generous guess (a launch, and the records and
    /// waits joining its internal streams).
    pub fn commands_per_call(self, ranks: usize) -> u32 {
        let barrier = ranks.max(1) as u32;
        match self {
            Implementation::Nccl | Implementation::NcclInPlace => 8,
            Implementation::OneShot => 2 * barrier + 1,
            Implementation::TwoShot => 3 * barrier + 2,
        }
    }
}

impl fmt::Display for Implementation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a list of implementations does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListError {
    /// A name that is none of [`Implementation::ALL`]'s.
    #[error("unknown implementation `{0}`: choose from {known} or all", known = known_names())]
    Unknown(String),
    /// The list names nothing.
    #[error("no implementation named")]
    Empty,
}

/// Every implementation's name, comma-separated.
fn known_names() -> String {
    let names: Vec<&str> = Implementation::ALL.iter().map(|i| i.name()).collect();
    names.join(", ")
}

/// Reads a comma-separated list of names (`all` for every one of
/// [`Implementation::ALL`]), in the order of `ALL`, without repeats.
pub fn parse_list(text: &str) -> Result<Vec<Implementation>, ListError> {
    let mut wanted = Vec::new();
    for name in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if name == "all" {
            wanted.extend(Implementation::ALL);
            continue;
        }
        match Implementation::ALL.iter().find(|i| i.name() == name) {
            Some(i) => wanted.push(*i),
            None => return Err(ListError::Unknown(name.to_string())),
        }
    }
    if wanted.is_empty() {
        return Err(ListError::Empty);
    }
    Ok(Implementation::ALL
        .into_iter()
        .filter(|i| wanted.contains(i))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Names read back to their implementations, in the sweep's order, once each.
    #[test]
    fn names_read_in_sweep_order_once() {
        assert_eq!(
            parse_list("two-shot, nccl,nccl").unwrap(),
            vec![Implementation::Nccl, Implementation::TwoShot]
        );
        assert_eq!(parse_list("all").unwrap(), Implementation::ALL.to_vec());
    }

    // Unknown names and empty lists are refused, naming the choices.
    #[test]
    fn unknown_names_are_refused_with_the_choices() {
        let e = parse_list("nccl,ring").unwrap_err();
        assert_eq!(e, ListError::Unknown("ring".into()));
        assert_eq!(
            e.to_string(),
            "unknown implementation `ring`: choose from nccl, nccl-inplace, one-shot, two-shot or all"
        );
        assert_eq!(parse_list(" ").unwrap_err(), ListError::Empty);
    }

    // Our barriers cost a record and a wait per other rank each.
    #[test]
    fn commands_count_the_barriers() {
        assert_eq!(Implementation::OneShot.commands_per_call(1), 3);
        assert_eq!(Implementation::TwoShot.commands_per_call(1), 5);
        assert_eq!(Implementation::TwoShot.commands_per_call(8), 26);
        assert_eq!(Implementation::Nccl.commands_per_call(2), 8);
    }

    // Only NCCL's need the library; only ours need peer access.
    #[test]
    fn needs_follow_the_implementation() {
        assert!(Implementation::NcclInPlace.uses_nccl());
        assert!(!Implementation::OneShot.uses_nccl());
        assert!(Implementation::TwoShot.uses_peer_access());
        assert!(!Implementation::Nccl.uses_peer_access());
    }
}
