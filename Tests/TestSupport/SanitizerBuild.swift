import Foundation

/// Whether these tests were built with a sanitizer (`swift build --build-tests --sanitize=address`
/// or `thread`), and so the `healthrouter` beside them, which the same build made with the same
/// flags. The sanitizer's runtime, linked in whole (statically: no `libclang_rt` shows in
/// `/proc/self/maps`), exports its entry point to the dynamic symbol table, where `dlsym` finds it.
public enum SanitizerBuild {
    /// `AddressSanitizer`, `ThreadSanitizer`, or nil in an ordinary build.
    public static let name: String? = {
        let program = dlopen(nil, RTLD_NOW)
        defer { if let program { dlclose(program) } }
        if dlsym(program, "__asan_init") != nil { return "AddressSanitizer" }
        if dlsym(program, "__tsan_init") != nil { return "ThreadSanitizer" }
        return nil
    }()
}
