//! One implementation at one size: the checked run, then the timed
//! samples, as one row of the report.

use super::buffers::{Buffers, Staging};
use super::ranks::{self, Rank};
use super::{nccl, ours, timing};
use anyhow::{Context, Result};
use cuda_measured_core::allreduce::implementations::Implementation;
use cuda_measured_core::allreduce::report::{Check, Row};
use cuda_measured_core::allreduce::sizes::format_bytes;
use cuda_measured_core::allreduce::timing::Timing;
use cuda_measured_core::method::Policy;

/// Everything a size's runs share.
pub(super) struct Sweep<'a> {
    pub ranks: &'a [Rank],
    pub seeds: &'a [u64],
    pub tol: f64,
    pub policy: &'a Policy,
    pub nccl: Option<&'a nccl::Nccl>,
    pub one_shot: Option<&'a ours::Ours>,
    pub two_shot: Option<&'a ours::Ours>,
}

impl Sweep<'_> {
    /// The row of `implementation` on `bufs`; an error becomes the row's
    /// error, and one that lost a GPU's context is also returned, as the
    /// reason the sweep must end.
    pub fn row(
        &self,
        implementation: Implementation,
        bufs: &Buffers,
        timer: &mut timing::Timer,
        staging: &mut Staging,
    ) -> (Row, Option<String>) {
        match self.one(implementation, bufs, timer, staging) {
            Ok(row) => (row, None),
            Err(e) => {
                let fault = is_fault(&e).then(|| {
                    format!(
                        "a GPU fault at {} ({implementation}) ended the sweep: {e:#}",
                        format_bytes(4 * bufs.n)
                    )
                });
                let row = Row {
                    implementation: implementation.name().to_string(),
                    bytes: 4 * bufs.n,
                    elements: bufs.n,
                    check: None,
                    timing: None,
                    error: Some(format!("{e:#}")),
                };
                (row, fault)
            }
        }
    }

    /// Checks one implementation on `bufs`, then times it if it passed.
    fn one(
        &self,
        implementation: Implementation,
        bufs: &Buffers,
        timer: &mut timing::Timer,
        staging: &mut Staging,
    ) -> Result<Row> {
        let ranks = self.ranks;
        let in_place = implementation == Implementation::NcclInPlace;
        let enqueue = || -> Result<()> {
            match implementation {
                Implementation::Nccl | Implementation::NcclInPlace => self
                    .nccl
                    .context("NCCL was not initialised")?
                    .all_reduce(bufs, in_place),
                Implementation::OneShot => Ok(self
                    .one_shot
                    .context("one-shot was not loaded")?
                    .all_reduce(ranks, bufs)?),
                Implementation::TwoShot => Ok(self
                    .two_shot
                    .context("two-shot was not loaded")?
                    .all_reduce(ranks, bufs)?),
            }
        };
        bufs.poison_outputs(ranks)?;
        if in_place {
            bufs.copy_inputs_to_outputs(ranks)?;
        }
        enqueue()?;
        ranks::synchronize(ranks).context("the checked all-reduce failed on a GPU")?;
        let tally = bufs.check_outputs(ranks, self.seeds, self.tol, staging)?;
        let check = Check::of(tally, ranks.len(), bufs.n);
        let bytes = 4 * bufs.n;
        let mut row = Row {
            implementation: implementation.name().to_string(),
            bytes,
            elements: bufs.n,
            check: None,
            timing: None,
            error: None,
        };
        let failure = check.failure(self.tol, ranks.len() as u64 * bufs.n);
        row.check = Some(check);
        if failure.is_some() {
            row.error = failure;
            return Ok(row);
        }
        let commands = implementation.commands_per_call(ranks.len());
        let samples = timer.sample(self.policy, commands, enqueue)?;
        row.timing = Some(Timing::of(&samples, bytes, ranks.len()));
        Ok(row)
    }
}

/// Whether `e` comes from a fault that lost a GPU's context.
fn is_fault(e: &anyhow::Error) -> bool {
    e.chain()
        .filter_map(|c| c.downcast_ref::<cudarc::driver::DriverError>())
        .any(crate::measure::is_fault)
}
