//! The chart of an all-reduce report, drawn like the peers chart
//! ([`crate::render::chart`], whose parts it uses) into an inline SVG: median time
//! against the message size (log–log) beside the bus bandwidth against
//! the message size, one line per implementation, one legend under both.
//! With one GPU the bus bandwidth is 0 by definition, so the chart is the
//! time panel alone, across the width, and its caption says why.
//!
//! Series colours are mid-tones readable on light and dark themes: NCCL
//! in blues and violets, the book's own kernels in orange and green.

use super::render::{implementations, label, sizes};
use super::{gpus_of, row_of};
use crate::render::chart::{
    Area, ChartError, DrawResult, HEIGHT, INK, LEGEND_HEIGHT, SMALL, Series, TIME_CAPTION, TITLE,
    WIDTH, XAxis, colour_of, draw_legend, draw_line, draw_times, finish, font, tick_label, ticked,
};
use cuda_measured_core::allreduce::report::Report;
use cuda_measured_core::allreduce::sizes::format_bytes;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

/// Each implementation's colour; another implementation is drawn in the
/// first of [`OTHER_COLOURS`] not taken.
const COLOURS: [(&str, &str); 4] = [
    ("nccl", "#4C8BD6"),
    ("nccl-inplace", "#8A6FD1"),
    ("one-shot", "#E8710A"),
    ("two-shot", "#3AA05E"),
];
const OTHER_COLOURS: [&str; 2] = ["#D0487A", "#1FA3A3"];

/// The time panel's caption with one GPU, saying why it stands alone.
const ONE_GPU_CAPTION: &str = "median time, µs (log scale); one GPU: busbw is 0 by definition";

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
    let x = bytes_axis(&points);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        let (plots, legend) = root.split_vertically(HEIGHT - LEGEND_HEIGHT);
        let drawn = if report.ranks == 1 {
            draw_times(&plots, &series, &x, &points, ONE_GPU_CAPTION)
        } else {
            let panels = plots.split_evenly((1, 2));
            draw_times(&panels[0], &series, &x, &points, TIME_CAPTION)
                .and_then(|()| draw_busbw(&panels[1], &series, &x, &points))
        };
        drawn.map_err(ChartError::draw)?;
        draw_legend(&legend, &series).map_err(ChartError::draw)?;
        root.present().map_err(ChartError::draw)?;
    }
    Ok(finish(&svg, &title_of(report, &series)))
}

/// One line per implementation, in the sweep's order: runs of consecutive
/// sizes with a timing, as (log2 bytes, µs, busbw GB/s).
fn series_of(report: &Report) -> Vec<Series> {
    let sizes = sizes(report);
    let mut spare = OTHER_COLOURS.iter();
    implementations(report)
        .into_iter()
        .map(|name| {
            let mut runs: Vec<Vec<(f64, f64, f64)>> = vec![Vec::new()];
            for &bytes in &sizes {
                match row_of(report, name, bytes).and_then(|r| r.timing.as_ref()) {
                    Some(t) if t.median_us > 0.0 => runs
                        .last_mut()
                        .expect("runs start with one")
                        .push(((bytes as f64).log2(), t.median_us, t.busbw_gbs)),
                    _ => runs.push(Vec::new()),
                }
            }
            runs.retain(|r| !r.is_empty());
            let colour = COLOURS
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, c)| *c)
                .or_else(|| spare.next().copied())
                .unwrap_or("#808080");
            let ours = !name.starts_with("nccl");
            Series {
                label: label(name),
                short: name.to_string(),
                colour: colour_of(colour),
                width: if ours { 3 } else { 2 },
                runs,
            }
        })
        .filter(|s| !s.runs.is_empty())
        .collect()
}

/// The message-size axis: log2 of the bytes, at most six steps of 1, 2, 5
/// or 10 powers of two, labelled in bytes (`32 B`, `1 KiB`, `1 MiB`).
fn bytes_axis(points: &[(f64, f64, f64)]) -> XAxis {
    let lo = points.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let hi = points.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .find(|s| (hi - lo) / s <= 6.0)
        .unwrap_or(10.0);
    let first = (lo / step).ceil() * step;
    let ticks = (0..)
        .map(|i| first + step * f64::from(i))
        .take_while(|t| *t <= hi + 1e-9)
        .collect();
    XAxis {
        range: (lo - 0.5)..(hi + 0.5),
        ticks,
        label: "message size".into(),
        format: Box::new(bytes_label),
    }
}

/// `1 KiB` for 10.
fn bytes_label(v: &f64) -> String {
    format_bytes(2f64.powf(v.round()) as u64)
}

/// The panel of bus bandwidth against the message size.
fn draw_busbw(
    area: &Area<'_>,
    series: &[Series],
    x: &XAxis,
    points: &[(f64, f64, f64)],
) -> DrawResult {
    let top = points.iter().map(|p| p.2).fold(0.0, f64::max).max(1.0) * 1.12;
    let mut chart = ChartBuilder::on(area)
        .caption("bus bandwidth, GB/s", font(TITLE))
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
    for s in series.iter().rev() {
        for run in &s.runs {
            let line: Vec<(f64, f64)> = run.iter().map(|p| (p.0, p.2)).collect();
            draw_line(&mut chart, s, line)?;
        }
    }
    Ok(())
}

/// What the chart shows, for its `<title>`.
fn title_of(report: &Report, series: &[Series]) -> String {
    let names: Vec<&str> = series.iter().map(|s| s.label.as_str()).collect();
    let what = if report.ranks == 1 {
        "median time (one GPU: the bus bandwidth is 0 by definition)"
    } else {
        "median time and bus bandwidth"
    };
    format!(
        "All-reduce over {}: {what} against message size for {}",
        gpus_of(report),
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::super::render::tests::{one_gpu, two_gpus};
    use super::*;

    fn texts(svg: &str) -> Vec<String> {
        let text = regex::Regex::new(r">([^<>]+)</text>").unwrap();
        text.captures_iter(svg).map(|c| c[1].to_string()).collect()
    }

    // Over two GPUs: a time panel and a busbw panel, sizes in bytes, one
    // labelled line per implementation, in the page's colours.
    #[test]
    fn two_panels_over_several_gpus() {
        let svg = svg(&two_gpus()).unwrap();
        let texts = texts(&svg);
        for want in [
            "median time, µs (log scale)",
            "bus bandwidth, GB/s",
            "32 B",
            "1 KiB",
            "32 MiB",
            "message size",
            "NCCL",
            "NCCL in place",
            "one-shot (ours)",
            "two-shot (ours)",
        ] {
            assert!(texts.iter().any(|t| t == want), "{want} not in {texts:?}");
        }
        assert!(svg.contains("fill=\"currentColor\""));
        assert!(!svg.contains("#000000"), "black vanishes on dark themes");
        assert!(!svg.lines().any(|l| l.trim().is_empty()));
    }

    // With one GPU busbw is 0 everywhere: the chart is the time alone and
    // its caption says why.
    #[test]
    fn one_gpu_shows_time_and_says_why() {
        let svg = svg(&one_gpu()).unwrap();
        let texts = texts(&svg);
        assert!(texts.iter().any(|t| t == ONE_GPU_CAPTION), "{texts:?}");
        assert!(!texts.iter().any(|t| t == "bus bandwidth, GB/s"));
        assert!(svg.contains("one GPU: the bus bandwidth is 0 by definition"));
    }

    // A size that failed its check breaks the line instead of bridging it.
    #[test]
    fn failed_sizes_split_lines() {
        let series = series_of(&two_gpus());
        let two_shot = series.iter().find(|s| s.short == "two-shot").unwrap();
        assert_eq!(
            two_shot.runs.len(),
            1,
            "8 B failed: the line starts at 32 B"
        );
        assert_eq!(two_shot.runs[0][0].0, 5.0);
        let nccl = series.iter().find(|s| s.short == "nccl").unwrap();
        assert_eq!(nccl.runs[0].len(), 14);
    }

    // Ticks fall on round powers of two and read in bytes.
    #[test]
    fn byte_ticks() {
        let axis = bytes_axis(&[(3.0, 1.0, 0.0), (28.0, 1.0, 0.0)]);
        assert_eq!(axis.ticks, [5.0, 10.0, 15.0, 20.0, 25.0]);
        let labels: Vec<String> = axis.ticks.iter().map(bytes_label).collect();
        assert_eq!(labels, ["32 B", "1 KiB", "32 KiB", "1 MiB", "32 MiB"]);
        assert_eq!(
            bytes_axis(&[(10.0, 1.0, 0.0), (14.0, 1.0, 0.0)])
                .ticks
                .len(),
            5
        );
    }
}
