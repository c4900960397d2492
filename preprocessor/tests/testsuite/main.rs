//! Integration tests of `mdbook-cuda`: fixture books under
//! `tests/fixtures/<name>/` built with the real `mdbook` (see
//! [`book_test`]), one module per concern, snapshots of the chapter HTML
//! between `<main>` and `</main>`.

mod allreduce;
mod author;
mod book_test;
mod compiling;
mod directives;
mod exercise;
mod fake_runner;
mod host;
mod includes;
mod lifetime;
mod panels;
mod quick;
mod reports;
mod sanitizer;
mod sass;
mod static_checks;
mod status;
mod strict;
mod subcommands;
