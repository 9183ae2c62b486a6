import ParleyConfig

extension FuzzTarget {
    /// TOML config files: users write them, and `parley` reads them at start.
    static let toml = FuzzTarget(name: "toml", summary: "the TOML config parser") { data in
        guard let document = try? TOMLDocument(parsing: data) else { return }
        _ = document.plain
    }
}
