import CYAML

/// Turns YAML text into a `ConfigNode` tree through libyaml's event API.
///
/// One document per file. Mapping keys are plain text, keep their order and must be
/// unique. Aliases (`*name`) are rejected: a config says each value where it is used.
/// Errors name the file, line and column and libyaml's own description of the problem.
enum YAMLParser {
    /// Parses `bytes` (UTF-8, UTF-16 with BOM) from `file` (nil: text from no file).
    /// Empty text, or text with only comments, is a `.null` node.
    static func parse(_ bytes: [UInt8], file: String?) throws(ConfigError) -> ConfigNode {
        guard !bytes.isEmpty else { return ConfigNode(.null, location: ConfigLocation(file: file, line: 1, column: 1)) }
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw ConfigError(file: file, message: "cannot start the YAML parser (out of memory)")
        }
        defer { yaml_parser_delete(&parser) }

        let result: Result<ConfigNode, ConfigError> = bytes.withUnsafeBufferPointer { buffer in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var builder = TreeBuilder(file: file, bytes: bytes)
            var event = yaml_event_t()
            while true {
                guard yaml_parser_parse(&parser, &event) == 1 else {
                    return .failure(builder.syntaxError(parser))
                }
                defer { yaml_event_delete(&event) }
                do throws(ConfigError) {
                    if try builder.handle(&event) { break }
                } catch {
                    return .failure(error)
                }
            }
            return .success(builder.root ?? ConfigNode(.null, location: ConfigLocation(file: file, line: 1, column: 1)))
        }
        return try result.get()
    }
}

/// Builds the tree from parser events with an explicit stack (no recursion, so deep
/// nesting cannot overflow the stack).
private struct TreeBuilder {
    private enum Frame {
        case mapping(entries: [ConfigNode.Entry], seen: [String: Int], pendingKey: (String, ConfigLocation)?, location: ConfigLocation)
        case sequence(items: [ConfigNode], location: ConfigLocation)
    }

    /// The deepest nesting of mappings and sequences a config may have.
    static let maximumDepth = 64

    let file: String?
    let bytes: [UInt8]
    private var stack: [Frame] = []
    private(set) var root: ConfigNode?
    private var documents = 0

    init(file: String?, bytes: [UInt8]) {
        self.file = file
        self.bytes = bytes
    }

    private func location(_ mark: yaml_mark_t) -> ConfigLocation {
        ConfigLocation(file: file, line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }

    /// Handles one event; returns true at the end of the stream.
    mutating func handle(_ event: inout yaml_event_t) throws(ConfigError) -> Bool {
        let here = location(event.start_mark)
        switch event.type {
        case YAML_STREAM_END_EVENT:
            return true
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 {
                throw ConfigError(at: here, path: nil, message: "a config file holds one YAML document; found a second one ('---')",
                                  suggestion: "remove the '---' line and merge the documents")
            }
        case YAML_ALIAS_EVENT:
            let name = String(cString: event.data.alias.anchor)
            throw ConfigError(at: here, path: path().isEmpty ? nil : path(), message: "YAML aliases (*\(name)) are not supported",
                              suggestion: "write the value out where it is used")
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
            let isNull = scalar.style == YAML_PLAIN_SCALAR_STYLE && ["", "~", "null", "Null", "NULL"].contains(text)
            try add(ConfigNode(isNull ? .null : .scalar(text), location: here), keyText: text)
        case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
            // No config nests this deep; a value that does (a file that is not a config, or a
            // typo such as `[[[[…`) would overflow the stack of the passes that walk the tree.
            guard stack.count < Self.maximumDepth else {
                // The top-level key is named (the whole path would be 64 keys long).
                let top = path().split(whereSeparator: { $0 == "." || $0 == "[" }).first.map(String.init)
                throw ConfigError(at: here, path: top,
                                  message: "the value is nested deeper than \(Self.maximumDepth) levels",
                                  suggestion: "a config nests a few levels; check this file is the config you meant")
            }
            stack.append(event.type == YAML_SEQUENCE_START_EVENT ? .sequence(items: [], location: here)
                                                                 : .mapping(entries: [], seen: [:], pendingKey: nil, location: here))
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            switch stack.removeLast() {
            case .sequence(let items, let location):
                try add(ConfigNode(.sequence(items), location: location), keyText: nil)
            case .mapping(let entries, _, _, let location):
                try add(ConfigNode(.mapping(entries), location: location), keyText: nil)
            }
        default:
            break
        }
        return false
    }

    /// Adds a finished node to the enclosing collection, as a key or a value.
    private mutating func add(_ node: ConfigNode, keyText: String?) throws(ConfigError) {
        guard let last = stack.indices.last else {
            root = node
            return
        }
        // The frame's arrays are taken out (an empty frame left in their place) before they grow,
        // so that they are not shared and grow in place: copied at each node, a list of 40,000
        // items took 10 s.
        switch stack[last] {
        case .sequence(var items, let location):
            stack[last] = .sequence(items: [], location: location)
            items.append(node)
            stack[last] = .sequence(items: items, location: location)
        case .mapping(var entries, var seen, let pendingKey, let location):
            stack[last] = .mapping(entries: [], seen: [:], pendingKey: nil, location: location)
            if let (key, keyLocation) = pendingKey {
                entries.append(ConfigNode.Entry(key: key, keyLocation: keyLocation, value: node))
                stack[last] = .mapping(entries: entries, seen: seen, pendingKey: nil, location: location)
                return
            }
            guard let key = keyText else {
                throw ConfigError(at: node.location, path: nil, message: "a mapping key must be plain text, not \(node.kindDescription)")
            }
            if let first = seen[key] {
                stack[last] = .mapping(entries: entries, seen: seen, pendingKey: nil, location: location)
                throw ConfigError(at: node.location, path: ConfigKeyPath.appending(key, to: path()),
                                  message: "duplicate key '\(key)' (first written on line \(first))",
                                  suggestion: "keep one of the two; YAML mappings cannot repeat a key")
            }
            seen[key] = node.location.line
            stack[last] = .mapping(entries: entries, seen: seen, pendingKey: (key, node.location), location: location)
        }
    }

    /// The key path of the collection being built (`sinks.local`).
    private func path() -> String {
        var path = ""
        for frame in stack {
            switch frame {
            case .mapping(_, _, let pendingKey, _):
                if let (key, _) = pendingKey { path = ConfigKeyPath.appending(key, to: path) }
            case .sequence(let items, _):
                path = ConfigKeyPath.appending(index: items.count, to: path)
            }
        }
        return path
    }

    /// The error libyaml reported, with its place and context.
    func syntaxError(_ parser: yaml_parser_t) -> ConfigError {
        let problem = parser.problem.map { String(cString: $0) } ?? "malformed YAML"
        let mark = parser.error == YAML_READER_ERROR ? lineAndColumn(ofByte: parser.problem_offset) : location(parser.problem_mark)
        var message = "invalid YAML: \(problem)"
        if let context = parser.context.map({ String(cString: $0) }) {
            let at = location(parser.context_mark)
            message += " (\(context) at line \(at.line), column \(at.column))"
        }
        var suggestion: String?
        if parser.error == YAML_READER_ERROR {
            suggestion = "save the file as UTF-8"
        } else if lineHasTabIndentation(mark.line) {
            suggestion = "YAML indents with spaces; replace the tabs on this line"
        } else if problem.contains("mapping values are not allowed") {
            suggestion = "a value containing ': ' must be quoted, or a key is indented wrongly"
        } else if problem.contains("did not find expected key") || problem.contains("did not find expected '-'") {
            suggestion = "check the indentation of this line against the lines above"
        } else if problem.contains("did not find expected ',' or '}'") || problem.contains("did not find expected ',' or ']'") {
            let (open, close) = problem.contains("'}'") ? ("{", "}") : ("[", "]")
            suggestion = "the \(open) opened at line \(location(parser.context_mark).line) has no \(close): close it, "
                + "or quote a value that holds a comma, brace or bracket"
        }
        return ConfigError(at: mark, path: nil, message: message, suggestion: suggestion)
    }

    private func lineAndColumn(ofByte offset: Int) -> ConfigLocation {
        var line = 1, column = 1
        for byte in bytes.prefix(offset) {
            if byte == UInt8(ascii: "\n") { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
        }
        return ConfigLocation(file: file, line: line, column: column)
    }

    private func lineHasTabIndentation(_ line: Int) -> Bool {
        var current = 1
        var atLineStart = true
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if current == line { return false }
                current += 1
                atLineStart = true
                continue
            }
            guard current == line, atLineStart else { continue }
            if byte == UInt8(ascii: "\t") { return true }
            if byte != UInt8(ascii: " ") { atLineStart = false }
        }
        return false
    }
}
