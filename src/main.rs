fn main() {
    std::process::exit(lemplint::cli::run());
}
