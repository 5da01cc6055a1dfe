//! The command line's own pieces: its flags. Everything else is the library's (the terminal progress
//! display is `render::progress`, which a replay's pass over the capture draws too).

pub mod args;
