namespace WebSocketCodec.PerfTest;

/// <summary>
/// The perf tool's <c>--deflate</c>: the load client offers permessage-deflate (with both
/// <c>*_no_context_takeover</c> when <see cref="ContextTakeover"/> is off), sends JSON text compressed once per
/// connection (no context, sync flush, tail stripped: valid for a server's inflater with or without context), and
/// counts the servers' replies by their wire bytes without inflating them. The servers compress at zlib's default level
/// (6), the one ASP.NET Core's ManagedWebSocket always uses, with 15-bit windows.
/// </summary>
public static class DeflateMode
{
    /// <summary>The variants that negotiate permessage-deflate today.</summary>
    public static IReadOnlyList<string> Variants { get; } = [PerfTest.Variants.OursEndpoint, PerfTest.Variants.OursEndpointMessages, PerfTest.Variants.AspNetCore];

    /// <summary>Why <paramref name="variant"/> cannot run with <c>--deflate</c>, or null when it can.</summary>
    public static string? Refusal(string variant) => variant switch
    {
        _ when Variants.Contains(variant) => null,
        PerfTest.Variants.Ours or PerfTest.Variants.OursBulk or PerfTest.Variants.OursMessages =>
            $"variant '{variant}' runs on the fast path (UseWebSockets), which does not negotiate permessage-deflate yet: use ours-endpoint or ours-endpoint-messages",
        _ => $"variant '{variant}' does not negotiate permessage-deflate; with --deflate use {string.Join(", ", Variants)}",
    };

    /// <summary>The <c>Sec-WebSocket-Extensions</c> offer.</summary>
    public static string Offer(bool contextTakeover) =>
        contextTakeover ? "permessage-deflate" : "permessage-deflate; server_no_context_takeover; client_no_context_takeover";
}
