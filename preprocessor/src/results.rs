//! The book's results as directives read them: each example's settled
//! outcome by id, the record at a size, the GPU they were measured on, and
//! the stored reports of a measuring session. [`crate::values`] and the
//! views of stored artifacts evaluate directives against them.

use crate::catalog::Catalog;
use crate::names::LookupError;
use crate::outcome::Outcome;
use crate::stored::StoredReports;
use cuda_measured_core::dims::{Dims, Written};
use cuda_measured_core::example::Example;
use cuda_measured_core::record::{Record, SizeResult};
use std::collections::BTreeMap;

/// The book's results, by example id, and its stored reports.
#[derive(Debug, Clone, Copy)]
pub struct Results<'a> {
    catalog: &'a Catalog,
    outcomes: &'a [Outcome],
    stored: &'a StoredReports,
}

impl<'a> Results<'a> {
    /// Results of `catalog`'s entries (`outcomes` in the same order), with
    /// the reports in `stored`.
    pub fn new(catalog: &'a Catalog, outcomes: &'a [Outcome], stored: &'a StoredReports) -> Self {
        Results {
            catalog,
            outcomes,
            stored,
        }
    }

    /// The book's examples.
    pub fn catalog(&self) -> &'a Catalog {
        self.catalog
    }

    /// Their outcomes, in catalog order.
    pub fn outcomes(&self) -> &'a [Outcome] {
        self.outcomes
    }

    /// The stored reports (peers, repeatability, profiles).
    pub fn stored(&self) -> &'a StoredReports {
        self.stored
    }

    /// Whether the figures of `id` (at `size`, when given) wait only to be
    /// measured: the example has no record for its current code and
    /// declares the size. An unknown or broken example does not wait.
    pub fn waits_on(&self, id: &str, size: Option<Dims>) -> bool {
        let Some(index) = self.catalog.by_id(crate::example_ref::id_of(id)) else {
            return false;
        };
        self.outcomes[index].state().awaits_measuring()
            && self.catalog.entries[index]
                .example()
                .is_some_and(|e| size.is_none_or(|n| e.declaration.sizes.contains(&n)))
    }

    /// `size` as a directive writes it, read as a size of example `id`'s
    /// problem (of one dimension, `n`, when the book has no such example,
    /// whose figures are then missing anyway).
    pub fn size_of(&self, id: &str, size: &Written) -> Result<Dims, LookupError> {
        let id = crate::example_ref::id_of(id);
        let dims = self
            .catalog
            .by_id(id)
            .and_then(|index| self.catalog.entries[index].example())
            .map_or(cuda_measured_core::dims::N, |e| e.declaration.dims());
        size.resolve(dims).map_err(|error| LookupError::Size {
            id: id.to_string(),
            error,
        })
    }

    /// The example `id` and its current key, when the book has it.
    pub fn example(&self, id: &str) -> Option<(&'a Example, &'a str)> {
        let index = self.catalog.by_id(crate::example_ref::id_of(id))?;
        let resolved = self.catalog.entries[index].resolved.as_ref().ok()?;
        Some((&resolved.example, resolved.key.as_str()))
    }

    /// The current key of example `id` and its outcome, when the book has it.
    pub(crate) fn current(&self, id: &str) -> Option<(&'a str, &'a Outcome)> {
        let index = self.catalog.by_id(crate::example_ref::id_of(id))?;
        let resolved = self.catalog.entries[index].resolved.as_ref().ok()?;
        Some((resolved.key.as_str(), &self.outcomes[index]))
    }

    /// The current record of `id`, or why there is none.
    pub fn record(&self, id: &str) -> Result<&'a Record, LookupError> {
        let id = crate::example_ref::id_of(id);
        let index = self.catalog.by_id(id).ok_or_else(|| self.unknown_id(id))?;
        match &self.outcomes[index] {
            Outcome::Fresh(r) | Outcome::Unstored { record: r, .. } => Ok(r),
            Outcome::Stale(_) => Err(LookupError::Stale(id.to_string())),
            Outcome::Missing => Err(LookupError::Missing(id.to_string())),
            Outcome::Broken(_) => Err(LookupError::Broken(id.to_string())),
        }
    }

    /// Why no example has id `id` ([`crate::names::unknown_id`]).
    pub fn unknown_id(&self, id: &str) -> LookupError {
        crate::names::unknown_id(self.catalog, id)
    }

    /// The current figures of `id` at `size`, or why there are none (a
    /// size the example does not declare is named with those it does).
    /// `id` names a value of a swept example as `ID@NAME=VALUE`, whose
    /// figures are those of that value only.
    pub fn at(&self, id: &str, size: Dims) -> Result<(&'a Record, &'a SizeResult), LookupError> {
        let mut value = None;
        if let Ok(example) = crate::names::example(self.catalog, crate::example_ref::id_of(id)) {
            if let Some(undeclared) = crate::names::undeclared_size(example, size) {
                return Err(LookupError::Undeclared(undeclared));
            }
            value = crate::example_ref::value_of(example, id, true).map_err(LookupError::Value)?;
        }
        let record = self.record(id)?;
        // By value: a record keeps the names of several dimensions but not
        // of one (`n`, or `bytes` for a transfer), and the directive's size
        // is read against the same example's dimensions.
        record
            .sizes
            .iter()
            .find(|s| s.size().values() == size.values() && s.sweep == value)
            .map(|s| (record, s))
            .ok_or_else(|| LookupError::NoTimedResult {
                id: id.to_string(),
                size: size.words(),
            })
    }

    /// [`Results::at`] of a size as a directive writes it.
    pub fn at_written(
        &self,
        id: &str,
        size: &Written,
    ) -> Result<(&'a Record, &'a SizeResult), LookupError> {
        self.at(id, self.size_of(id, size)?)
    }

    /// The GPU most current records were measured on.
    pub fn gpu_name(&self) -> Result<String, LookupError> {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for record in self.outcomes.iter().filter_map(Outcome::fresh) {
            if let Some(gpu) = &record.gpu {
                *counts.entry(gpu.name.as_str()).or_default() += 1;
            }
        }
        counts
            .into_iter()
            .max_by_key(|&(name, count)| (count, std::cmp::Reverse(name)))
            .map(|(name, _)| name.to_string())
            .ok_or(LookupError::NoGpu)
    }
}
