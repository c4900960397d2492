//! `cuda-runner serve --compile-only` as a page and an abuser see it, over
//! real HTTP on an ephemeral port, on a small book written for the test
//! (and the repository's own book for an exercise stage). Needs NVRTC on
//! the loader path, as scripts/test puts it; no GPU.

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

/// The kernel file of the test book: vector addition, the page showing
/// its `kernel` anchor.
const ADD: &str = r#"/*+++
problem = "elementwise"
sizes = ["2^16", "2^20"]
[[launch]]
kernel = "add"
grid = "ceil_div(n, 256)"
block = 256
args = ["x", "y", "z", "n"]

[elementwise]
inputs = ["x", "y"]
output = "z"
reference = "x + y"
+++*/

// A helper the page does not show.
__device__ float twice(float v) { return 2.0f * v; }

// ANCHOR: kernel
extern "C" __global__ void add(const float* x, const float* y, float* z, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        z[i] = x[i] + y[i];
    }
}
// ANCHOR_END: kernel
"#;

/// What the page shows of [`ADD`]: the anchor's lines.
const ADD_SHOWN: &str = r#"extern "C" __global__ void add(const float* x, const float* y, float* z, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        z[i] = x[i] + y[i];
    }
}"#;

/// An example written in the chapter itself (its whole body shown).
const INLINE: &str = r#"/*+++
problem = "sum_f32"
sizes = ["2^20"]
[[launch]]
kernel = "sum"
grid = "ceil_div(n, 256)"
block = 256
args = ["input", "out", "n"]
+++*/
extern "C" __global__ void sum(const float* x, float* out, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, x[i]);
}
"#;

/// A book with one chapter showing `t/add` (a file, by anchor) and
/// `inline_sum` (inline).
fn test_book() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("serve-book-")
        .tempdir()
        .unwrap();
    let root = dir.path();
    let write = |rel: &str, text: &str| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("book.toml", "[book]\ntitle = \"serve test\"\n");
    write("src/SUMMARY.md", "# Summary\n\n- [Chapter](ch.md)\n");
    write(
        "src/ch.md",
        &format!(
            "# Chapter\n\n```cuda run file=t/add.cu anchor=kernel\n```\n\n```cuda run id=inline_sum\n{INLINE}```\n"
        ),
    );
    write("kernels/t/add.cu", ADD);
    dir
}

/// A running `cuda-runner serve`, killed when dropped.
struct Server {
    child: Child,
    addr: String,
    stderr: Arc<Mutex<String>>,
}

impl Server {
    /// Starts the service on `book` in compile-only mode with `extra`
    /// flags, and waits for the line that names its address.
    fn start(book: &Path, extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_cuda-runner"))
            .arg("serve")
            .arg("--book")
            .arg(book)
            .args(["--compile-only", "--listen", "127.0.0.1:0"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cuda-runner starts");
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut pipe = child.stderr.take().unwrap();
        let kept = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                kept.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = send.send(line);
            }
        });
        let line = lines
            .recv_timeout(Duration::from_secs(120))
            .unwrap_or_else(|_| panic!("no address line; stderr: {}", stderr.lock().unwrap()));
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_string();
        Server {
            child,
            addr,
            stderr,
        }
    }

    /// POSTs `body` as JSON to /run.
    fn run(&self, body: &Value) -> Reply {
        request(
            &self.addr,
            "POST",
            "/run",
            &[("Content-Type", "application/json")],
            body.to_string().as_bytes(),
        )
    }

    /// A good kernel is still answered correctly (after an abuse test).
    fn still_answers(&self) {
        let reply = self.run(&serde_json::json!({"example": "t/add", "source": ADD_SHOWN}));
        assert_eq!(reply.status, 200, "{}\n{}", reply.body, self.log());
        assert_eq!(reply.json()["outcome"], "no_gpu", "{}", reply.body);
    }

    fn log(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP answer.
#[derive(Debug)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }
}

/// One HTTP/1.1 exchange on a connection of its own, written byte by
/// byte as the abuse tests need (a declared length with no body, a wrong
/// content type).
fn request(addr: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if !headers
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("content-length"))
    {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    let mut stream = TcpStream::connect(addr).expect("the service accepts");
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .unwrap();
    stream.write_all(head.as_bytes()).unwrap();
    // The service may answer and close before reading a body it refuses.
    let _ = stream.write_all(body);
    read_reply(stream)
}

fn read_reply(mut stream: TcpStream) -> Reply {
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"));
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    Reply {
        status,
        headers,
        body: body.to_string(),
    }
}

/// No answer names a path of the server: not the book's folder, not the
/// temporary folder.
fn assert_no_server_path(reply: &Reply, book: &Path) {
    let book_dir = book.to_string_lossy();
    let canonical = book.canonicalize().unwrap();
    let tmp = std::env::temp_dir();
    for path in [
        book_dir.as_ref(),
        &canonical.to_string_lossy(),
        &tmp.to_string_lossy(),
    ] {
        assert!(!reply.body.contains(path), "{path} in {}", reply.body);
    }
}

// A broken kernel is a compile error at the line of the reader's text
// (not of the book's file, whose header and helper come first), with its
// column; a good one compiled and is answered "no GPU here". The inline
// example's lines are the reader's too. Health names no GPU.
#[test]
fn compile_errors_point_at_the_readers_line() {
    let book = test_book();
    let server = Server::start(book.path(), &[]);
    let good = server.run(&serde_json::json!({"example": "t/add", "source": ADD_SHOWN}));
    assert_eq!(good.status, 200, "{}", good.body);
    let answer = good.json();
    assert_eq!(answer["outcome"], "no_gpu");
    assert_eq!(answer["message"], "compiled; no GPU here");
    assert_eq!(answer["quick"], true);
    assert_no_server_path(&good, book.path());

    let broken = ADD_SHOWN.replace("z[i] = x[i] + y[i];", "z[i] = x[i] + w[i];");
    let reply = server.run(&serde_json::json!({"example": "t/add", "source": broken}));
    let answer = reply.json();
    assert_eq!(answer["outcome"], "compile_error", "{}", reply.body);
    let first = &answer["diagnostics"][0];
    assert_eq!(first["line"], 4, "{}", reply.body);
    assert_eq!(first["column"], 23, "{}", reply.body);
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            .starts_with("line 4: error: identifier \"w\"")
    );
    assert_eq!(answer["record"]["status"], "compile-error");
    let panel = answer["panel_html"].as_str().unwrap();
    assert!(
        panel.starts_with("<div class=\"cm-panel cm-fail\""),
        "{panel}"
    );
    assert_no_server_path(&reply, book.path());

    let inline_shown = INLINE.split_once("+++*/\n").unwrap().1;
    let inline_broken = inline_shown.replace("atomicAdd(out, x[i]);", "atomicAdd(out, x[i])");
    let reply = server.run(&serde_json::json!({"example": "inline_sum", "source": inline_broken}));
    let answer = reply.json();
    assert_eq!(answer["outcome"], "compile_error", "{}", reply.body);
    let line = answer["diagnostics"][0]["line"].as_u64().unwrap();
    // The missing `;` is reported at line 3 or where the next token is.
    assert!((3..=4).contains(&line), "{}", reply.body);

    let health = request(&server.addr, "GET", "/health", &[], b"");
    assert_eq!(health.status, 200);
    let health = health.json();
    assert_eq!(health["mode"], "compile-only");
    assert_eq!(health["gpu"], Value::Null);
    assert_eq!(health["queue"]["capacity"], 8);
}

// Unknown ids are refused with the closest ones, a reader's header with
// its line, malformed JSON, a request naming no example, a body that is
// not JSON and another method each with their status; an include outside
// the kernels folder is a compile error at its line. After each, the
// service answers a good request.
#[test]
fn bad_requests_are_refused_and_the_service_goes_on() {
    let book = test_book();
    let server = Server::start(book.path(), &[]);
    let reply = server.run(&serde_json::json!({"example": "t/ad", "source": ADD_SHOWN}));
    assert_eq!(reply.status, 400);
    let answer = reply.json();
    assert_eq!(answer["closest"][0], "t/add", "{}", reply.body);
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .starts_with("unknown example `t/ad`")
    );
    server.still_answers();

    let with_header = format!("int a;\n/*+++\nproblem = \"sum_f32\"\n+++*/\n{ADD_SHOWN}");
    let reply = server.run(&serde_json::json!({"example": "t/add", "source": with_header}));
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert!(
        reply.json()["error"]
            .as_str()
            .unwrap()
            .starts_with("line 2: the source holds an example header")
    );
    server.still_answers();

    let json = [("Content-Type", "application/json")];
    let reply = request(&server.addr, "POST", "/run", &json, b"{\"example\": ");
    assert_eq!(reply.status, 400);
    assert!(
        reply.json()["error"]
            .as_str()
            .unwrap()
            .starts_with("malformed request")
    );
    let reply = request(&server.addr, "POST", "/run", &json, b"{\"source\": \"x\"}");
    assert_eq!(reply.status, 400);
    let text = [("Content-Type", "text/plain")];
    let reply = request(&server.addr, "POST", "/run", &text, b"{}");
    assert_eq!(reply.status, 415);
    reply.json();
    let reply = request(&server.addr, "GET", "/run", &[], b"");
    assert_eq!(reply.status, 405);
    reply.json();
    server.still_answers();

    let outside = format!("#include \"../../../../etc/passwd\"\n{ADD_SHOWN}");
    let reply = server.run(&serde_json::json!({"example": "t/add", "source": outside}));
    let answer = reply.json();
    assert_eq!(answer["outcome"], "compile_error", "{}", reply.body);
    assert_eq!(answer["diagnostics"][0]["line"], 1);
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            .contains("outside the book's kernels/ folder")
    );
    assert_no_server_path(&reply, book.path());
    server.still_answers();
}

// A 10 MB body is refused with 413 from its declared length, before it is
// sent; one sent without a length is cut at the limit and refused too.
#[test]
fn large_bodies_are_refused_early() {
    let book = test_book();
    let server = Server::start(book.path(), &[]);
    let started = Instant::now();
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let head = format!(
        "POST /run HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 10485760\r\nConnection: close\r\n\r\n",
        server.addr
    );
    stream.write_all(head.as_bytes()).unwrap();
    let reply = read_reply(stream);
    assert_eq!(reply.status, 413, "{reply:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        reply.json()["error"]
            .as_str()
            .unwrap()
            .contains("262144 bytes")
    );

    let mut stream = TcpStream::connect(&server.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let head = format!(
        "POST /run HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        server.addr
    );
    stream.write_all(head.as_bytes()).unwrap();
    let chunk = vec![b' '; 64 * 1024];
    for _ in 0..8 {
        let sent = stream
            .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
            .and_then(|()| stream.write_all(&chunk))
            .and_then(|()| stream.write_all(b"\r\n"));
        if sent.is_err() {
            break;
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n");
    let reply = read_reply(stream);
    assert_eq!(reply.status, 413, "{reply:?}");
    server.still_answers();
}

// Fifty requests at once on a queue of four: some are answered 503 busy
// with a Retry-After, the others compiled; every answer is JSON; then a
// good request is answered as before.
#[test]
fn a_flood_gets_busy_answers() {
    let book = test_book();
    let server = Arc::new(Server::start(
        book.path(),
        &["--queue", "4", "--rate-per-minute", "0"],
    ));
    let start = Arc::new(Barrier::new(50));
    let threads: Vec<_> = (0..50)
        .map(|_| {
            let (server, start) = (Arc::clone(&server), Arc::clone(&start));
            std::thread::spawn(move || {
                start.wait();
                server.run(&serde_json::json!({"example": "t/add", "source": ADD_SHOWN}))
            })
        })
        .collect();
    let replies: Vec<Reply> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let busy: Vec<&Reply> = replies.iter().filter(|r| r.status == 503).collect();
    let done = replies.iter().filter(|r| r.status == 200).count();
    assert!(!busy.is_empty(), "no 503 among 50");
    assert!(done >= 1, "none answered");
    assert_eq!(busy.len() + done, 50, "{replies:?}");
    for reply in &replies {
        let answer = reply.json();
        assert_no_server_path(reply, book.path());
        if reply.status == 503 {
            let after: u64 = reply.header("Retry-After").unwrap().parse().unwrap();
            assert!(after >= 1);
            assert_eq!(answer["retry_after_s"], after);
            assert!(answer["error"].as_str().unwrap().starts_with("busy, retry"));
        } else {
            assert_eq!(answer["outcome"], "no_gpu");
        }
    }
    server.still_answers();
}

// A client past its rate is answered 429 with a Retry-After; a proxy's
// X-Forwarded-For is believed only with --trust-proxy.
#[test]
fn the_rate_limit_holds_per_client() {
    let book = test_book();
    let server = Server::start(book.path(), &["--rate-per-minute", "3"]);
    let good = serde_json::json!({"example": "t/add", "source": ADD_SHOWN});
    for _ in 0..3 {
        assert_eq!(server.run(&good).status, 200);
    }
    let reply = server.run(&good);
    assert_eq!(reply.status, 429, "{}", reply.body);
    assert!(reply.header("Retry-After").unwrap().parse::<u64>().unwrap() >= 1);
    reply.json();
    // Another address in X-Forwarded-For does not help without --trust-proxy.
    let forwarded = request(
        &server.addr,
        "POST",
        "/run",
        &[
            ("Content-Type", "application/json"),
            ("X-Forwarded-For", "10.1.2.3"),
        ],
        good.to_string().as_bytes(),
    );
    assert_eq!(forwarded.status, 429);

    let proxied = Server::start(book.path(), &["--rate-per-minute", "1", "--trust-proxy"]);
    let from = |ip: &str| {
        request(
            &proxied.addr,
            "POST",
            "/run",
            &[
                ("Content-Type", "application/json"),
                ("X-Forwarded-For", ip),
            ],
            good.to_string().as_bytes(),
        )
        .status
    };
    assert_eq!(from("10.0.0.1"), 200);
    assert_eq!(from("10.0.0.1"), 429);
    assert_eq!(from("10.0.0.2"), 200);
}

// A preflight from a book hosted elsewhere is allowed for POST with a
// JSON body; answers carry the allowed origin.
#[test]
fn cors_allows_any_origin() {
    let book = test_book();
    let server = Server::start(book.path(), &[]);
    let reply = request(
        &server.addr,
        "OPTIONS",
        "/run",
        &[
            ("Origin", "https://book.example.org"),
            ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "content-type"),
        ],
        b"",
    );
    assert!(reply.status == 200 || reply.status == 204, "{reply:?}");
    assert_eq!(reply.header("access-control-allow-origin"), Some("*"));
    let methods = reply
        .header("access-control-allow-methods")
        .unwrap()
        .to_ascii_uppercase();
    assert!(
        methods.contains("POST") && methods.contains("GET"),
        "{methods}"
    );
    assert!(
        reply
            .header("access-control-allow-headers")
            .unwrap()
            .to_ascii_lowercase()
            .contains("content-type")
    );
    let health = request(
        &server.addr,
        "GET",
        "/health",
        &[("Origin", "https://book.example.org")],
        b"",
    );
    assert_eq!(health.header("access-control-allow-origin"), Some("*"));
    server.still_answers();
}

// The server's own paths never reach an answer, even when the compiler
// quotes them: a reader's `#error` naming the book's folder comes back
// with the folder replaced.
#[test]
fn server_paths_are_scrubbed_from_compiler_messages() {
    let book = test_book();
    let server = Server::start(book.path(), &[]);
    let canonical = book.path().canonicalize().unwrap();
    let source = format!(
        "#error {}/kernels/t/add.cu\n{ADD_SHOWN}",
        canonical.display()
    );
    let reply = server.run(&serde_json::json!({"example": "t/add", "source": source}));
    let answer = reply.json();
    assert_eq!(answer["outcome"], "compile_error", "{}", reply.body);
    assert!(
        reply.body.contains("<book>/kernels/t/add.cu"),
        "{}",
        reply.body
    );
    assert_no_server_path(&reply, book.path());
}

// An exercise stage of the repository's book is answered with its gates,
// each not judged without a GPU.
#[test]
fn a_stage_lists_its_gates_unjudged() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let server = Server::start(&root, &[]);
    let starter =
        std::fs::read_to_string(root.join("kernels/exercise/reduction/stage1_solution.cu"))
            .unwrap();
    let shown = starter
        .split_once("+++*/")
        .unwrap()
        .1
        .trim_start_matches('\n');
    let reply = server.run(&serde_json::json!({"stage": "reduction/stage2", "source": shown}));
    let answer = reply.json();
    assert_eq!(answer["outcome"], "no_gpu", "{}", reply.body);
    let gates = answer["gates"].as_array().unwrap();
    assert!(!gates.is_empty(), "{}", reply.body);
    for gate in gates {
        assert_eq!(gate["passed"], Value::Null);
        assert!(
            gate["detail"]
                .as_str()
                .unwrap()
                .starts_with("not judged: this service compiles only")
        );
    }
    let reply = server.run(&serde_json::json!({"stage": "reduction/stage9", "source": shown}));
    assert_eq!(reply.status, 400);
    assert!(!reply.json()["closest"].as_array().unwrap().is_empty());
}

// A stage runs the reader's text under the stage solution's header: the
// solution's kernel (which the starter's launch plan does not name)
// compiles and matches; the unchanged starter still runs, as the starter;
// a kernel named neither way is a compile error naming the solution's.
#[test]
fn a_stage_runs_the_solution_plan_or_the_starter() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let server = Server::start(&root, &[]);
    let body = |file: &str| {
        let text =
            std::fs::read_to_string(root.join("kernels/exercise/reduction").join(file)).unwrap();
        text.split_once("+++*/")
            .unwrap()
            .1
            .trim_start_matches('\n')
            .to_owned()
    };
    let solution = body("stage2_solution.cu");
    let starter = body("stage1_solution.cu");
    for (what, text) in [("solution", &solution), ("starter", &starter)] {
        let reply = server.run(&serde_json::json!({"stage": "reduction/stage2", "source": text}));
        assert_eq!(reply.json()["outcome"], "no_gpu", "{what}: {}", reply.body);
    }
    let renamed = solution.replace("sum_atomic_each", "sum_renamed");
    let reply = server.run(&serde_json::json!({"stage": "reduction/stage2", "source": renamed}));
    let answer = reply.json();
    assert_eq!(answer["outcome"], "compile_error", "{}", reply.body);
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            .contains("sum_atomic_each"),
        "{}",
        reply.body
    );
}

// Without --compile-only on a machine without a GPU, the service does not
// start, and says to use --compile-only. (Skipped where a GPU answers.)
#[test]
fn without_a_gpu_it_asks_for_compile_only() {
    let probe = Command::new(env!("CARGO_BIN_EXE_cuda-runner"))
        .args(["device", "--json"])
        .output()
        .unwrap();
    if probe.status.success() {
        eprintln!("a GPU answers here: nothing to test");
        return;
    }
    let book = test_book();
    let run = Command::new(env!("CARGO_BIN_EXE_cuda-runner"))
        .arg("serve")
        .arg("--book")
        .arg(book.path())
        .args(["--listen", "127.0.0.1:0"])
        .output()
        .unwrap();
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("--compile-only"), "{stderr}");
}

// A kernel NVRTC takes far longer than the compile limit over (65536
// dependent statements: over 30 s here) is stopped at the limit and
// answered `timeout` naming it; the next request compiles as before.
#[test]
fn a_slow_compile_is_stopped_at_the_limit() {
    let book = test_book();
    let server = Server::start(book.path(), &["--compile-timeout-s", "2"]);
    let slow = "#define A1(s) s s s s\n#define A2(s) A1(A1(s))\n#define A4(s) A2(A2(s))\n#define A8(s) A4(A4(s))\nextern \"C\" __global__ void sum(const float* x, float* out, unsigned int n) {\n    float acc = x[threadIdx.x];\n    A8(acc = acc * x[(unsigned)acc & 1023] + 1.0f;)\n    out[0] = acc;\n}\n";
    let started = Instant::now();
    let reply = server.run(&serde_json::json!({"example": "inline_sum", "source": slow}));
    let answer = reply.json();
    assert_eq!(answer["outcome"], "timeout", "{}", reply.body);
    assert_eq!(
        answer["message"],
        "compiling took longer than the 2 s compile limit and was stopped"
    );
    assert!(started.elapsed() < Duration::from_secs(20));
    server.still_answers();
}
