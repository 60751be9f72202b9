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
    public static string? Refusal(string variant) => PerfTest.Variants.SplitTuning(variant).Variant switch
    {
        _ when Variants.Contains(variant) => null,
        PerfTest.Variants.Ours or PerfTest.Variants.OursBulk or PerfTest.Variants.OursMessages =>
            $"variant '{variant}' runs on the fast path (UseWebSockets), which does not negotiate permessage-deflate yet: use ours-endpoint or ours-endpoint-messages",
        _ => $"variant '{variant}' does not negotiate permessage-deflate; with --deflate use {string.Join(", ", Variants)}",
    };

    /// <summary><c>--deflate-level optimal</c>: zlib's level 6, ManagedWebSocket's fixed level (the default here, so that
    /// both servers do the same zlib work).</summary>
    public const string Optimal = "optimal";

    /// <summary><c>--deflate-level fastest</c>: zlib's level 1, <see cref="PerMessageDeflateOptions.Level"/>'s
    /// default, for our variants only (ASP.NET Core's level cannot be set).</summary>
    public const string Fastest = "fastest";

    /// <summary>The compression level of a <c>--deflate-level</c> value.</summary>
    public static System.IO.Compression.CompressionLevel Level(string level) => level switch
    {
        Optimal => System.IO.Compression.CompressionLevel.Optimal,
        Fastest => System.IO.Compression.CompressionLevel.Fastest,
        _ => throw new ArgumentException($"--deflate-level is {Optimal} or {Fastest}, not '{level}'.", nameof(level)),
    };

    /// <summary>The reported name of <paramref name="variant"/> at <paramref name="level"/>: ours at a level other than
    /// the default carry it (<c>ours-endpoint/fastest</c>); <c>aspnetcore</c> is always at 6.</summary>
    public static string Label(string variant, string level) =>
        level == Optimal || variant == PerfTest.Variants.AspNetCore ? variant : variant + "/" + level;

    /// <summary>The <c>Sec-WebSocket-Extensions</c> offer.</summary>
    public static string Offer(bool contextTakeover) =>
        contextTakeover ? "permessage-deflate" : "permessage-deflate; server_no_context_takeover; client_no_context_takeover";
}
