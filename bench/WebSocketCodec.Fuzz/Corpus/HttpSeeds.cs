using System.Text;

namespace WebSocketCodec.Fuzz;

/// <summary>
/// The seed HTTP/1.1 heads: the upgrade requests and 101 responses of test/WebSocketCodec.Tests/Http1 (valid, each
/// rule broken once, malformed lines), some with frame bytes after the head; and the dictionary of tokens the grammar
/// turns on.
/// </summary>
public static class HttpSeeds
{
    /// <summary>The client key of the RFC 6455 example; every response seed answers it.</summary>
    public const string Key = "dGhlIHNhbXBsZSBub25jZQ==";

    /// <summary>The subprotocols the client offers when responses are validated.</summary>
    public static readonly string[] Offered = ["chat", "superchat"];

    private const string Accept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

    private const string Request =
        "GET /chat?x=1 HTTP/1.1\r\nHost: server.example.com\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";

    private const string Response =
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + Accept + "\r\n";

    /// <summary>Tokens for the text mutator.</summary>
    public static readonly string[] Dictionary =
    [
        "\r\n", "\r\n\r\n", "\n", "\r", ":", ": ", " ", "\t", ",", ", ", "\0", "\u007F", "\u00FF", "GET", "HTTP/1.1", "HTTP/1.0", "101",
        "Host: ", "Upgrade: ", "websocket", "Connection: ", "Upgrade", "keep-alive", "Sec-WebSocket-Version: ", "13", "8",
        "Sec-WebSocket-Key: ", Key, "Sec-WebSocket-Accept: ", Accept, "Sec-WebSocket-Protocol: ", "chat", "superchat",
        "Sec-WebSocket-Extensions: ", "permessage-deflate", "Content-Length: ", "0", "Transfer-Encoding: chunked",
        "Origin: http://example.com", "=", "\"", ";", "(", "/",
    ];

    /// <summary>Every seed.</summary>
    public static IReadOnlyList<CorpusEntry> All { get; } = Build();

    private static List<CorpusEntry> Build()
    {
        var entries = new List<CorpusEntry>();
        void Add(string name, string text) => entries.Add(new(name, Encoding.Latin1.GetBytes(text)));

        // Requests.
        Add("request", Request + "\r\n");
        Add("request-rfc-example", Request + "Origin: http://example.com\r\nSec-WebSocket-Protocol: chat, superchat\r\n\r\n");
        Add("request-extensions", Request + "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n");
        Add("request-lists", "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: h2c, WebSocket\r\nConnection: keep-alive, upgrade\r\nconnection: close\r\n" +
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version:13\r\nContent-Length: 0\r\n\r\n");
        entries.Add(new("request-then-frames", [.. Encoding.Latin1.GetBytes(Request + "\r\n"), 0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]));
        Add("request-post", Request.Replace("GET", "POST", StringComparison.Ordinal) + "\r\n");
        Add("request-http10", Request.Replace("HTTP/1.1", "HTTP/1.0", StringComparison.Ordinal) + "\r\n");
        Add("request-no-host", Request.Replace("Host: server.example.com\r\n", "", StringComparison.Ordinal) + "\r\n");
        Add("request-two-hosts", Request + "Host: other\r\n\r\n");
        Add("request-no-upgrade", Request.Replace("Upgrade: websocket\r\n", "", StringComparison.Ordinal) + "\r\n");
        Add("request-no-connection", Request.Replace("Connection: Upgrade\r\n", "", StringComparison.Ordinal) + "\r\n");
        Add("request-no-version", Request.Replace("Sec-WebSocket-Version: 13\r\n", "", StringComparison.Ordinal) + "\r\n");
        Add("request-version-8", Request.Replace("Version: 13", "Version: 8", StringComparison.Ordinal) + "\r\n");
        Add("request-bad-key", Request.Replace(Key, "dGhlIHNhbXBsZSBub25jZQ", StringComparison.Ordinal) + "\r\n");
        Add("request-two-keys", Request + "Sec-WebSocket-Key: " + Key + "\r\n\r\n");
        Add("request-body", Request + "Content-Length: 5\r\n\r\nhello");
        Add("request-chunked", Request + "Transfer-Encoding: chunked\r\n\r\n");
        Add("request-bad-subprotocols", Request + "Sec-WebSocket-Protocol: chat,, \"x\"\r\n\r\n");
        Add("request-bare-lf", "GET / HTTP/1.1\nHost: x\n\n");
        Add("request-obs-fold", Request + " folded\r\n\r\n");
        Add("request-space-before-colon", Request + "Host : x\r\n\r\n");
        Add("request-control-char", Request + "X: a\0b\r\n\r\n");
        Add("request-bad-start-line", "GET /\r\nHost: x\r\n\r\n");

        // Responses (validated against Key and Offered).
        Add("response", Response + "\r\n");
        Add("response-subprotocol", Response + "Sec-WebSocket-Protocol: chat\r\n\r\n");
        Add("response-subprotocol-not-offered", Response + "Sec-WebSocket-Protocol: other\r\n\r\n");
        Add("response-two-subprotocols", Response + "Sec-WebSocket-Protocol: chat\r\nSec-WebSocket-Protocol: chat\r\n\r\n");
        Add("response-wrong-accept", Response.Replace(Accept, "AAAAAAAAAAAAAAAAAAAAAAAAAAA=", StringComparison.Ordinal) + "\r\n");
        Add("response-two-accepts", Response + "Sec-WebSocket-Accept: " + Accept + "\r\n\r\n");
        Add("response-extension", Response + "Sec-WebSocket-Extensions: permessage-deflate\r\n\r\n");
        Add("response-200", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
        Add("response-no-upgrade", Response.Replace("Upgrade: websocket\r\n", "", StringComparison.Ordinal) + "\r\n");
        Add("response-426", "HTTP/1.1 426 Upgrade Required\r\nSec-WebSocket-Version: 13\r\nUpgrade: websocket\r\n\r\n");
        entries.Add(new("response-then-frames", [.. Encoding.Latin1.GetBytes(Response + "\r\n"), 0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]));
        return entries;
    }
}
