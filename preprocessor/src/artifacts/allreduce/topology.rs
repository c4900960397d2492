//! The link between a report's GPUs in short form, read from the
//! `nvidia-smi topo -m` matrix the report stores verbatim: `NV18` for 18
//! bonded NVLinks, `SYS`, `NODE`, `PHB`, `PXB` or `PIX` for a PCIe path.

use cuda_measured_core::allreduce::report::Report;

/// The link between the ranks' GPUs (`NV18 (18 NVLinks)`), `one GPU, no
/// link` for one rank, or `None` when the report has no matrix to read it
/// from or the matrix does not name the GPUs.
pub fn link_summary(report: &Report) -> Option<String> {
    if report.ranks == 1 {
        return Some("one GPU, no link".into());
    }
    let matrix = Matrix::parse(report.link.nvidia_smi_topo.as_deref()?)?;
    // nvidia-smi numbers every GPU of the machine; the ranks are the first
    // visible ones, named by CUDA_VISIBLE_DEVICES when it lists indices.
    let visible: Option<Vec<usize>> = report
        .environment
        .get("CUDA_VISIBLE_DEVICES")
        .and_then(|list| list.split(',').map(|i| i.trim().parse().ok()).collect());
    let index = |rank: usize| {
        visible
            .as_ref()
            .map_or(Some(rank), |v| v.get(rank).copied())
    };
    let mut links: Vec<&str> = Vec::new();
    for a in 0..report.ranks {
        for b in a + 1..report.ranks {
            let link = matrix.entry(index(a)?, index(b)?)?;
            if !links.contains(&link) {
                links.push(link);
            }
        }
    }
    let words: Vec<String> = links.iter().map(|l| words(l)).collect();
    Some(words.join(", "))
}

/// `NV18 (18 NVLinks)`, `SYS (PCIe)`.
fn words(link: &str) -> String {
    match link.strip_prefix("NV").and_then(|n| n.parse::<u32>().ok()) {
        Some(1) => format!("{link} (1 NVLink)"),
        Some(n) => format!("{link} ({n} NVLinks)"),
        None if ["SYS", "NODE", "PHB", "PXB", "PIX"].contains(&link) => format!("{link} (PCIe)"),
        None => link.to_string(),
    }
}

/// The GPU-to-GPU part of `nvidia-smi topo -m`.
struct Matrix<'a> {
    /// Column headings (`GPU0`, `GPU1`, `NIC0`, `CPU Affinity`, ...).
    head: Vec<&'a str>,
    /// Rows by their first cell (`GPU0`), each with its cells after it.
    rows: Vec<(&'a str, Vec<&'a str>)>,
}

impl<'a> Matrix<'a> {
    /// The matrix of `text`, its terminal escapes (nvidia-smi underlines
    /// the heading) skipped.
    fn parse(text: &'a str) -> Option<Self> {
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let head = lines
            .next()?
            .split('\t')
            .map(unescape)
            .filter(|c| !c.is_empty())
            .collect();
        let rows = lines
            .map(|l| {
                let mut cells = l.split('\t').map(unescape);
                (cells.next().unwrap_or_default(), cells.collect())
            })
            .filter(|(name, _)| is_gpu(name))
            .collect();
        Some(Matrix { head, rows })
    }

    /// The link from GPU `a` to GPU `b`.
    fn entry(&self, a: usize, b: usize) -> Option<&'a str> {
        let column = self.head.iter().position(|h| *h == format!("GPU{b}"))?;
        let (_, cells) = self.rows.iter().find(|(n, _)| *n == format!("GPU{a}"))?;
        cells.get(column).copied().filter(|c| !c.is_empty())
    }
}

/// `GPU0`, `GPU12`.
fn is_gpu(cell: &str) -> bool {
    cell.strip_prefix("GPU")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// A cell without its ANSI escapes (`ESC [ 4 m`) and surrounding spaces.
fn unescape(cell: &str) -> &str {
    let mut cell = cell.trim();
    while let Some(start) = cell.find('\u{1b}') {
        let end = cell[start..]
            .find('m')
            .map_or(cell.len(), |e| start + e + 1);
        cell = if start == 0 {
            cell[end..].trim()
        } else {
            cell[..start].trim()
        };
    }
    cell
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two H200s of an eight-GPU machine as nvidia-smi prints them,
    /// heading underlined.
    const EIGHT: &str = "\t\u{1b}[4mGPU0\tGPU1\tGPU2\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\u{1b}[0m\nGPU0\t X \tNV18\tNV18\tSYS\t0-47\t0\t\tN/A\nGPU1\tNV18\t X \tNV18\tSYS\t0-47\t0\t\tN/A\nGPU2\tNV18\tNV18\t X \tSYS\t48-95\t1\t\tN/A\nNIC0\tSYS\tSYS\tSYS\t X \n\nLegend:\n\n  X    = Self\n  NV#  = Connection traversing a bonded set of # NVLinks\n";

    fn report(ranks: usize, topo: Option<&str>, visible: Option<&str>) -> Report {
        let mut value: serde_json::Value =
            serde_json::from_str(crate::test_support::ALLREDUCE_1GPU).unwrap();
        value["ranks"] = ranks.into();
        value["link"]["nvidia_smi_topo"] = topo.into();
        if let Some(v) = visible {
            value["environment"]["CUDA_VISIBLE_DEVICES"] = v.into();
        }
        serde_json::from_value(value).unwrap()
    }

    // NVLinks between the ranks' GPUs read as the count of links; the
    // heading's escapes and the NIC column are no GPU.
    #[test]
    fn nvlinks_between_the_ranks() {
        assert_eq!(
            link_summary(&report(2, Some(EIGHT), None)).as_deref(),
            Some("NV18 (18 NVLinks)")
        );
        assert_eq!(
            link_summary(&report(3, Some(EIGHT), None)).as_deref(),
            Some("NV18 (18 NVLinks)")
        );
    }

    // CUDA_VISIBLE_DEVICES picks the GPUs of nvidia-smi's numbering; a
    // GPU the matrix does not have gives no summary rather than a guess.
    #[test]
    fn visible_devices_name_the_rows() {
        let pcie = EIGHT
            .replace("GPU0\t X \tNV18\tNV18", "GPU0\t X \tNV18\tSYS")
            .replace("GPU2\tNV18\tNV18", "GPU2\tSYS\tSYS");
        assert_eq!(
            link_summary(&report(2, Some(&pcie), Some("0,2"))).as_deref(),
            Some("SYS (PCIe)")
        );
        assert_eq!(link_summary(&report(2, Some(EIGHT), Some("0,7"))), None);
    }

    // One rank has no link; a report without a matrix says nothing.
    #[test]
    fn one_rank_and_no_matrix() {
        let real = report(1, None, None);
        assert_eq!(link_summary(&real).as_deref(), Some("one GPU, no link"));
        assert_eq!(link_summary(&report(2, None, None)), None);
    }
}
