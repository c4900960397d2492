//! The chart of a peers comparison, drawn at build time with plotters into
//! an inline SVG from the shared parts of [`crate::render::chart`]: median
//! time against N (log–log) beside the problem's figure against N (GB/s,
//! or TFLOP/s for a matrix product: [`super::scale`]) with the measured
//! ceiling of the problem (read, copy for kernels that write as much as
//! they read, the FP32 FMA rate) and the datasheet peak as horizontal
//! lines, one line per implementation and one legend under both panels.
//! A problem of several dimensions has a tick at each size, labelled as
//! the problem writes it.

use super::render::{ours_label, peers_of, size_word};
use super::scale::Scale;
use crate::render::chart::{
    Area, ChartError, DrawResult, HEIGHT, INK, LEGEND_HEIGHT, SMALL, Series, TIME_CAPTION, TITLE,
    WIDTH, XAxis, colour_of, draw_legend, draw_line, draw_times, finish, font, tick_label, ticked,
    x_axis,
};
use cuda_measured_core::peers::{Report, Timing};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
/// Mid-tone colours, readable on white and on mdBook's dark themes.
const OURS_COLOUR: RGBColor = RGBColor(0xE8, 0x71, 0x0A);
/// The chart of `report` as an SVG element, or why it cannot be drawn.
pub fn svg(report: &Report) -> Result<String, ChartError> {
    let series = series_of(report);
    let points: Vec<(f64, f64, f64)> = series
        .iter()
        .flat_map(|s| s.runs.iter().flatten().copied())
        .collect();
    if points.is_empty() {
        return Err(ChartError::Empty);
    }
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        let (plots, legend) = root.split_vertically(HEIGHT - LEGEND_HEIGHT);
        let panels = plots.split_evenly((1, 2));
        let mut x = x_axis(&points);
        if cuda_measured_core::problem::lookup(&report.problem).is_some_and(|p| p.rowwise()) {
            x.label = "N (elements per row)".into();
        }
        dims_ticks(&mut x, report, &points);
        draw_times(&panels[0], &series, &x, &points, TIME_CAPTION).map_err(ChartError::draw)?;
        draw_figure(&panels[1], &series, &x, &points, &Scale::of(report))
            .map_err(ChartError::draw)?;
        draw_legend(&legend, &series).map_err(ChartError::draw)?;
        root.present().map_err(ChartError::draw)?;
    }
    Ok(finish(&svg, &title_of(report, &series)))
}

/// For a problem of several dimensions, a tick at each size charted,
/// labelled as the problem writes it: the common value under `M = N = K`
/// where every size's values are equal (`4096`), else the size's text
/// under its dimensions (`8192x4096` under `rows x cols`).
fn dims_ticks(x: &mut XAxis, report: &Report, points: &[(f64, f64, f64)]) {
    let sizes: Vec<(f64, cuda_measured_core::dims::Dims)> = report
        .rows
        .iter()
        .filter_map(|r| Some(((r.n.0 as f64).log2(), r.dims?)))
        .filter(|(at, _)| points.iter().any(|p| (p.0 - at).abs() < 1e-9))
        .collect();
    let Some((_, first)) = sizes.first() else {
        return;
    };
    let names: Vec<&str> = first.dims().iter().map(|d| d.name).collect();
    let cubes = names.len() > 1
        && sizes.iter().all(|(_, d)| {
            d.dims().iter().map(|d| d.name).eq(names.iter().copied())
                && d.values().iter().all(|v| *v == d.values()[0])
        });
    let labels: Vec<(f64, String)> = sizes
        .iter()
        .map(|(at, d)| {
            let text = if cubes {
                d.values()[0].to_string()
            } else {
                d.to_string()
            };
            (*at, text)
        })
        .collect();
    x.label = if cubes {
        names.join(" = ")
    } else {
        cuda_measured_core::dims::Dims::describe(first.dims())
    };
    x.ticks = labels.iter().map(|(at, _)| *at).collect();
    x.format = Box::new(move |v: &f64| {
        labels
            .iter()
            .find(|(at, _)| (at - v).abs() < 1e-9)
            .map(|(_, text)| text.clone())
            .unwrap_or_default()
    });
}

/// The lines to draw: ours first, then the charted peers present.
fn series_of(report: &Report) -> Vec<Series> {
    let scale = Scale::of(report);
    let runs_of = |pick: &dyn Fn(&cuda_measured_core::peers::Row) -> Option<&Timing>| {
        let mut runs: Vec<Vec<(f64, f64, f64)>> = vec![Vec::new()];
        for row in &report.rows {
            let point = pick(row)
                .filter(|t| t.median_us > 0.0 && row.n.0 > 0)
                .and_then(|t| Some(((row.n.0 as f64).log2(), t.median_us, scale.value(row, t)?)));
            match point {
                Some(p) => runs.last_mut().expect("runs start with one").push(p),
                None => runs.push(Vec::new()),
            }
        }
        runs.retain(|r| !r.is_empty());
        runs
    };
    let mut out = vec![Series {
        label: ours_label(report),
        short: ours_label(report),
        colour: OURS_COLOUR,
        width: 3,
        runs: runs_of(&|row| row.ours.as_ref()),
    }];
    for peer in peers_of(report).into_iter().filter(|p| p.chart) {
        let runs = runs_of(&|row| row.peers.get(&peer.key));
        if runs.is_empty() {
            continue;
        }
        out.push(Series {
            label: peer.label,
            short: peer.short,
            colour: colour_of(&peer.colour),
            width: 2,
            runs,
        });
    }
    out.retain(|s| !s.runs.is_empty());
    out
}

/// The panel of the figure against N with the ceiling of the problem:
/// read-only for a sum, copy (read plus write) for a kernel that writes as
/// much as it reads, the FP32 FMA rate for a matrix product; for a copy
/// over the host link (our kernel held to a pinned host-link ceiling),
/// that ceiling, and no HBM figure, which would be a hundred times higher
/// and flatten every line.
fn draw_figure(
    area: &Area<'_>,
    series: &[Series],
    x: &XAxis,
    points: &[(f64, f64, f64)],
    scale: &Scale,
) -> DrawResult {
    let read = scale.ceiling;
    let ceiling_label = scale.ceiling_label();
    let peak = scale.peak;
    let top = points
        .iter()
        .map(|p| p.2)
        .chain(read)
        .chain(peak)
        .fold(0.0, f64::max)
        * 1.12;
    let mut chart = ChartBuilder::on(area)
        .caption(scale.unit(), font(TITLE))
        .margin(12)
        .x_label_area_size(54)
        .y_label_area_size(66)
        .build_cartesian_2d(
            ticked::<RangedCoordf64>(x.range.clone(), x.ticks.clone()),
            0.0..top,
        )?;
    chart
        .configure_mesh()
        .x_label_formatter(&*x.format)
        .y_label_formatter(&tick_label)
        .y_labels(7)
        .x_desc(&x.label)
        .label_style(font(SMALL))
        .axis_desc_style(font(SMALL))
        .axis_style(INK.mix(0.55))
        .bold_line_style(INK.mix(0.12))
        .light_line_style(TRANSPARENT)
        .draw()?;
    let (x0, x1) = (x.range.start, x.range.end);
    let label_x = x0 + 0.15;
    if let Some(peak) = peak {
        chart.draw_series(DashedLineSeries::new(
            vec![(x0, peak), (x1, peak)],
            9,
            6,
            INK.mix(0.7).stroke_width(2),
        ))?;
        chart.draw_series(std::iter::once(Text::new(
            "datasheet peak",
            (label_x, peak),
            font(SMALL).pos(Pos::new(HPos::Left, VPos::Bottom)),
        )))?;
    }
    if let Some(read) = read {
        chart.draw_series(LineSeries::new(
            vec![(x0, read), (x1, read)],
            INK.mix(0.7).stroke_width(2),
        ))?;
        // Above the line at the right end: our lines run just under the
        // ceiling, and the datasheet peak's label sits at the left.
        chart.draw_series(std::iter::once(Text::new(
            ceiling_label.clone(),
            (x1 - 0.15, read),
            font(SMALL).pos(Pos::new(HPos::Right, VPos::Bottom)),
        )))?;
    }
    for s in series.iter().rev() {
        for run in &s.runs {
            let line: Vec<(f64, f64)> = run.iter().map(|p| (p.0, p.2)).collect();
            draw_line(&mut chart, s, line)?;
        }
    }
    Ok(())
}

/// The pinned host-link ceiling our kernel's record holds (a `transfer`
/// example's, of its direction), GB/s; `None` for a kernel on the device.
pub(super) fn host_link_ceiling(report: &Report) -> Option<f64> {
    let ceilings = report.ceilings.as_ref()?;
    ["h2d_pinned", "d2h_pinned"]
        .iter()
        .find_map(|name| ceilings.named(name))
        .map(|m| m.value)
}

/// What the chart shows, for its `<title>` (screen readers, tooltips).
fn title_of(report: &Report, series: &[Series]) -> String {
    let names: Vec<&str> = series.iter().map(|s| s.label.as_str()).collect();
    format!(
        "{}: median time and {} against {} for {} on {}",
        report.problem,
        Scale::of(report).unit(),
        size_word(report),
        names.join(", "),
        report.gpu
    )
}

#[cfg(test)]
mod tests {
    use super::super::render::tests::peers_report;
    use super::*;
    use crate::render::chart::INK_SVG;

    // The chart is one responsive SVG in the page's colours: every label a
    // reader needs is text, nothing is black on a dark page, no blank line.
    #[test]
    fn chart_is_themable_text() {
        let svg = svg(&peers_report()).unwrap();
        assert!(
            svg.starts_with("<svg class=\"cm-chart\" viewBox=\"0 0 960 430\" width=\"100%\""),
            "{svg}"
        );
        assert!(svg.trim_end().ends_with("</svg>"), "{svg}");
        for text in [
            ">2¹⁶<",
            ">2²⁸<",
            ">read ceiling (measured)<",
            ">datasheet peak<",
            ">fast_reduce (ours)<",
            ">CUB DeviceReduce::Sum<",
            ">torch.sum<",
            ">cupy.sum<",
            ">median time, µs (log scale)<",
            ">GB/s<",
        ] {
            assert!(svg.contains(text), "{text} not in the chart");
        }
        assert!(svg.contains("fill=\"currentColor\""));
        assert!(!svg.contains(INK_SVG));
        assert!(
            !svg.contains("#000000"),
            "black would vanish on dark themes"
        );
        assert!(!svg.contains("<rect"), "the background stays transparent");
        assert!(!svg.lines().any(|l| l.trim().is_empty()));
    }

    // A copy over the host link is drawn against its pinned ceiling, not
    // against the HBM read ceiling and datasheet peak.
    #[test]
    fn host_link_copies_draw_the_pinned_ceiling() {
        let mut report = peers_report();
        let ceilings = report
            .ceilings
            .as_mut()
            .expect("the test report has ceilings");
        ceilings.named.insert(
            "h2d_pinned".into(),
            cuda_measured_core::method::MeasuredCeiling {
                value: 55.5,
                unit: "GB/s".into(),
                peak: None,
                sm_clock_mhz: None,
            },
        );
        assert_eq!(host_link_ceiling(&report), Some(55.5));
        let svg = svg(&report).unwrap();
        assert!(
            svg.contains(">pinned host link (measured, 256 MiB)<"),
            "{svg}"
        );
        assert!(!svg.contains(">datasheet peak<"));
        assert!(!svg.contains(">read ceiling (measured)<"));
        assert_eq!(host_link_ceiling(&peers_report()), None);
    }

    // Sizes without a figure break the line instead of bridging it.
    #[test]
    fn gaps_split_lines() {
        let mut report = peers_report();
        let mut middle = report.rows[1].clone();
        middle.n = cuda_measured_core::size::Size(1 << 20);
        middle.ours = None;
        let mut last = report.rows[1].clone();
        last.n = cuda_measured_core::size::Size(1 << 30);
        report.rows.insert(1, middle);
        report.rows.push(last);
        let series = series_of(&report);
        assert_eq!(series[0].label, "fast_reduce (ours)");
        let runs: Vec<usize> = series[0].runs.iter().map(Vec::len).collect();
        assert_eq!(runs, [2]);
        let cub: Vec<usize> = series[1].runs.iter().map(Vec::len).collect();
        assert_eq!(cub, [4]);
        assert_eq!(
            series.iter().map(|s| s.label.as_str()).collect::<Vec<_>>(),
            [
                "fast_reduce (ours)",
                "CUB DeviceReduce::Sum",
                "torch.sum",
                "cupy.sum"
            ]
        );
    }
}
