//! The HTTP front of the service (axum): `GET /health`, `POST /run`, JSON
//! errors for everything else, CORS for any origin. A request is held to
//! the client's rate, its content type, the body limit (a declared length
//! over it is answered 413 before a byte of the body is read) and the
//! queue before any work; the work runs on a blocking thread, and a panic
//! there is answered 500 without touching the next request.

use super::api::{ErrorBody, Health, HealthGpu, HealthQueue, RunRequest};
use super::job::{Service, Target};
use super::limits::{Queue, RateLimit};
use super::splice::splice;
use axum::Router;
use axum::body::Body;
use axum::extract::{ConnectInfo, DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Instant;
use tower_http::cors::{Any, CorsLayer};

/// What every handler shares.
#[derive(Debug)]
pub struct Shared {
    /// The book, the children, the GPU.
    pub service: Arc<Service>,
    /// One job at a time, a few waiting.
    pub queue: Arc<Queue>,
    /// Requests per client.
    pub rate: RateLimit,
    /// Largest body read, bytes.
    pub max_body: usize,
    /// Whether the client is the last address of `X-Forwarded-For` (the
    /// one a trusted reverse proxy saw) rather than the peer.
    pub trust_proxy: bool,
}

/// The service's routes.
pub fn router(shared: Arc<Shared>) -> Router {
    let cors = CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::GET, Method::POST])
        .allow_headers([header::CONTENT_TYPE]);
    Router::new()
        .route("/health", get(health).fallback(method_not_allowed))
        .route("/run", post(run).fallback(method_not_allowed))
        .fallback(not_found)
        // The body is read by `run` itself, within its own limit.
        .layer(DefaultBodyLimit::disable())
        .layer(cors)
        .with_state(shared)
}

/// A JSON error answer, with `Retry-After` when given.
fn error(status: StatusCode, message: impl Into<String>) -> Response {
    error_with(status, message.into(), Vec::new(), None)
}

fn error_with(
    status: StatusCode,
    error: String,
    closest: Vec<String>,
    retry_after_s: Option<u64>,
) -> Response {
    let body = ErrorBody {
        error,
        closest,
        retry_after_s,
    };
    let mut response = (status, axum::Json(body)).into_response();
    if let Some(s) = retry_after_s {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(s));
    }
    response
}

async fn not_found() -> Response {
    error(
        StatusCode::NOT_FOUND,
        "no such endpoint: POST /run or GET /health",
    )
}

async fn method_not_allowed() -> Response {
    error(
        StatusCode::METHOD_NOT_ALLOWED,
        "method not allowed: POST /run, GET /health",
    )
}

async fn health(State(shared): State<Arc<Shared>>) -> Response {
    let (running, waiting, capacity) = shared.queue.state();
    let service = &shared.service;
    let health = Health {
        service: "cuda-runner",
        version: env!("CARGO_PKG_VERSION"),
        mode: if service.gpu.is_some() {
            "measure"
        } else {
            "compile-only"
        },
        gpu: service.gpu.as_ref().map(|g| HealthGpu {
            name: g.facts.name.clone(),
            uuid: g.facts.uuid.clone(),
        }),
        queue: HealthQueue {
            running,
            waiting,
            capacity,
        },
    };
    axum::Json(health).into_response()
}

/// The client a request counts against.
fn client(peer: SocketAddr, headers: &HeaderMap, trust_proxy: bool) -> IpAddr {
    if trust_proxy
        && let Some(ip) = headers
            .get("x-forwarded-for")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.rsplit(',').next())
            .and_then(|v| v.trim().parse().ok())
    {
        return ip;
    }
    peer.ip()
}

async fn run(
    State(shared): State<Arc<Shared>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let started = Instant::now();
    if let Err(wait) = shared.rate.take(client(peer, &headers, shared.trust_proxy)) {
        return error_with(
            StatusCode::TOO_MANY_REQUESTS,
            format!("too many requests from this address; retry in {wait} s"),
            Vec::new(),
            Some(wait),
        );
    }
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.trim_start()
                .to_ascii_lowercase()
                .starts_with("application/json")
        });
    if !json {
        return error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "send the request as JSON (Content-Type: application/json)",
        );
    }
    let too_big = || {
        error(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the request is larger than this service's limit of {} bytes",
                shared.max_body
            ),
        )
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > shared.max_body as u64) {
        return too_big();
    }
    let Ok(bytes) = axum::body::to_bytes(body, shared.max_body).await else {
        return too_big();
    };
    let request: RunRequest = match serde_json::from_slice(&bytes) {
        Ok(r) => r,
        Err(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                format!(
                    "malformed request ({e}); send {{\"example\": ID, \"source\": TEXT}} or {{\"stage\": NAME, \"source\": TEXT}}"
                ),
            );
        }
    };
    let service = &shared.service;
    let (target, runnable) = match (&request.example, &request.stage) {
        (Some(id), None) => {
            let key = match &request.anchor {
                Some(anchor)
                    if service
                        .book
                        .examples
                        .contains_key(&format!("{id}#{anchor}")) =>
                {
                    format!("{id}#{anchor}")
                }
                _ => id.clone(),
            };
            match service.book.example(&key) {
                Ok(r) => (Target::Example(key), r),
                Err(closest) => {
                    return error_with(
                        StatusCode::BAD_REQUEST,
                        format!("unknown example `{id}`{}", nearest_words(&closest)),
                        closest,
                        None,
                    );
                }
            }
        }
        (None, Some(name)) => match service.book.stage(name) {
            Ok(r) => (Target::Stage(name.clone()), r),
            Err(closest) => {
                return error_with(
                    StatusCode::BAD_REQUEST,
                    format!("unknown exercise stage `{name}`{}", nearest_words(&closest)),
                    closest,
                    None,
                );
            }
        },
        _ => {
            return error(
                StatusCode::BAD_REQUEST,
                "name exactly one of `example` and `stage`",
            );
        }
    };
    let spliced = match splice(&runnable.text, runnable.anchor(), &request.source) {
        Ok(s) => s,
        Err(e) => return error(StatusCode::BAD_REQUEST, e.to_string()),
    };
    let ticket = match shared.queue.admit() {
        Ok(t) => t,
        Err(busy) => {
            return error_with(
                StatusCode::SERVICE_UNAVAILABLE,
                format!("busy, retry in {} s", busy.retry_after_s),
                Vec::new(),
                Some(busy.retry_after_s),
            );
        }
    };
    let turn = shared.queue.turn().await;
    let job_started = Instant::now();
    let worker_service = Arc::clone(&shared.service);
    let label = match &target {
        Target::Example(id) => format!("example {id}"),
        Target::Stage(name) => format!("stage {name}"),
    };
    let ran =
        tokio::task::spawn_blocking(move || worker_service.run(&target, &spliced, started)).await;
    shared.queue.took(job_started.elapsed());
    drop(turn);
    drop(ticket);
    // A worker given back is replaced now, before the next request needs
    // it (the next job waits for the GPU's lock meanwhile).
    if shared.service.gpu.is_some() {
        let service = Arc::clone(&shared.service);
        tokio::task::spawn_blocking(move || {
            if let Some(gpu) = &service.gpu {
                gpu.keep_warm();
            }
        });
    }
    match ran {
        Ok(answer) => {
            eprintln!(
                "[cuda-runner serve] {label}: {:?} in {} ms",
                answer.outcome, answer.elapsed_ms.total
            );
            axum::Json(answer).into_response()
        }
        Err(_) => {
            eprintln!("[cuda-runner serve] {label}: the job panicked");
            error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the service failed on this request (a bug of the runner: report it); the next request is not affected",
            )
        }
    }
}

/// `; closest: a, b, c`, or nothing.
fn nearest_words(closest: &[String]) -> String {
    if closest.is_empty() {
        String::new()
    } else {
        format!("; closest: {}", closest.join(", "))
    }
}
