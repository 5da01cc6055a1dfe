//! Interruption: the long stages (replay, verify) stop on Ctrl-C (SIGINT) and on SIGTERM (what
//! `kill` and service managers send), cancel what runs on the servers, write the partial result
//! and exit non-zero.

/// Resolves at the first SIGINT or SIGTERM.
pub async fn interrupt() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
