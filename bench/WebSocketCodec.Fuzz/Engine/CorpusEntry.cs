namespace WebSocketCodec.Fuzz;

/// <summary>One seed input: a name saying which conformance case it comes from, its bytes, and for frame streams the
/// role of the end that reads them (a server reads masked frames, a client unmasked ones).</summary>
/// <param name="Name">The case, e.g. <c>close-1002</c>.</param>
/// <param name="Bytes">The input.</param>
/// <param name="Role">The reading end, for frame streams; null for other inputs.</param>
public sealed record CorpusEntry(string Name, byte[] Bytes, WebSocketRole? Role = null);
