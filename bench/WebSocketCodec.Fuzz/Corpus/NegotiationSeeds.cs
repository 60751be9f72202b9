using System.Text;

namespace WebSocketCodec.Fuzz;

/// <summary>
/// The seeds of the <c>negotiation</c> target: <c>Sec-WebSocket-Extensions</c> values as clients offer them and as
/// servers answer (RFC 7692 §7.1's examples, the library's own offers, each parameter rule broken once, list and
/// quoting corner cases), one value a seed, several fields separated by line feeds.
/// </summary>
public static class NegotiationSeeds
{
    /// <summary>Tokens for the text mutator.</summary>
    public static readonly string[] Dictionary =
    [
        "permessage-deflate", "PerMessage-Deflate", "x-webkit-deflate-frame", "server_no_context_takeover", "client_no_context_takeover",
        "server_max_window_bits", "client_max_window_bits", "=", "; ", ";", ",", ", ", " ", "\t", "\"", "\\", "\n", "8", "9", "10",
        "15", "16", "7", "0", "08", "+9", "=10", "=\"10\"", "=\"1\\0\"", "\u00FF", "\0",
    ];

    /// <summary>Every seed.</summary>
    public static IReadOnlyList<CorpusEntry> All { get; } =
    [
        Entry("plain", "permessage-deflate"),
        Entry("rfc-7.1.2-offer", "permessage-deflate; client_max_window_bits"),
        Entry("rfc-5.2-two-offers", "permessage-deflate; client_max_window_bits; server_max_window_bits=10, permessage-deflate; client_max_window_bits"),
        Entry("library-offer-defaults", "permessage-deflate; client_max_window_bits; client_no_context_takeover; server_no_context_takeover"),
        Entry("library-offer-window", "permessage-deflate; client_max_window_bits; server_max_window_bits=9"),
        Entry("all-four", "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=15; client_max_window_bits=8"),
        Entry("quoted", "permessage-deflate; server_max_window_bits=\"10\"; client_max_window_bits=\"12\""),
        Entry("quoted-escape", "permessage-deflate; client_max_window_bits=\"1\\2\""),
        Entry("spaces", "  permessage-deflate ;server_max_window_bits = 11 ;  client_no_context_takeover  "),
        Entry("duplicate", "permessage-deflate; server_no_context_takeover; server_no_context_takeover, permessage-deflate"),
        Entry("unknown-param", "permessage-deflate; foo, permessage-deflate; server_max_window_bits=8"),
        Entry("bad-window", "permessage-deflate; server_max_window_bits=16, permessage-deflate; server_max_window_bits=7, permessage-deflate; server_max_window_bits=010"),
        Entry("value-on-flag", "permessage-deflate; client_no_context_takeover=1"),
        Entry("missing-value", "permessage-deflate; server_max_window_bits"),
        Entry("other-first", "x-webkit-deflate-frame; no_context_takeover, permessage-deflate; client_max_window_bits=15"),
        Entry("empty-elements", ", ,permessage-deflate,,"),
        Entry("trailing-semicolon", "permessage-deflate;, permessage-deflate; ; server_no_context_takeover"),
        Entry("quoted-comma", "foo; bar=\"a,b\", permessage-deflate"),
        Entry("unterminated", "permessage-deflate; client_max_window_bits=\"10"),
        Entry("two-fields", "foo\npermessage-deflate; server_no_context_takeover"),
        Entry("answer-full", "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=9; client_max_window_bits=10"),
        Entry("answer-case", "Permessage-Deflate; Server_No_Context_Takeover; CLIENT_MAX_WINDOW_BITS=15"),
    ];

    private static CorpusEntry Entry(string name, string text) => new(name, Encoding.Latin1.GetBytes(text));
}
