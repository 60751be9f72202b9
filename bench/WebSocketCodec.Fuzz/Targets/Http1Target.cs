using System.Buffers;

namespace WebSocketCodec.Fuzz;

/// <summary>
/// The HTTP/1.1 head parser and the handshake checks on what it parses. Oracles: the outcome is self-consistent (Done
/// has a head ending in CRLFCRLF within the bounds, InvalidData an error, NeedMoreData neither); every prefix a
/// transport could deliver first is NeedMoreData or the very outcome of the whole input (a head complete in the prefix
/// is Done there, a valid head is never refused early); a parsed head through
/// <see cref="WebSocketUpgradeRequest.Validate"/> and <see cref="Http1Handshake.ValidateResponse"/> throws nothing
/// and what they accept meets the RFC 6455 rules they promise.
/// </summary>
public sealed class Http1Target : IFuzzTarget
{
    /// <inheritdoc />
    public string Name => "http1";

    /// <inheritdoc />
    public Mutator Mutator { get; } = new(HttpSeeds.All, frames: false, HttpSeeds.Dictionary);

    /// <inheritdoc />
    public bool IsDocumented(Exception exception) => false;

    /// <inheritdoc />
    public void Run(CorpusEntry entry, byte[] input, FuzzContext context)
    {
        ArgumentNullException.ThrowIfNull(input);
        ArgumentNullException.ThrowIfNull(context);
        FuzzRng rng = context.Rng;
        int maxHead = rng.OneIn(4) ? 1 + rng.Next(300) : HttpHeadParser.DefaultMaxHeadLength;
        int maxFields = rng.OneIn(4) ? rng.Next(8) : HttpHeadParser.DefaultMaxFields;
        HeadParse whole = HeadParse.Of(input, maxHead, maxFields);
        CheckConsistent(whole, input, maxHead);
        context.Count(whole.Status == OperationStatus.InvalidData ? $"InvalidData {whole.Error}" : whole.Status.ToString());
        foreach (int[] cuts in Splits.Plans(input.Length, rng))
        {
            foreach (int cut in cuts)
            {
                HeadParse prefix = HeadParse.Of(input.AsSpan(0, cut), maxHead, maxFields);
                CheckConsistent(prefix, input.AsSpan(0, cut), maxHead);
                if (prefix.Status == OperationStatus.NeedMoreData)
                {
                    if (whole.Status == OperationStatus.Done && cut >= whole.HeadLength)
                    {
                        throw new OracleFailureException($"the head is complete in the first {cut} bytes but they need more data");
                    }

                    continue;
                }

                if (!prefix.SameAs(whole))
                {
                    throw new OracleFailureException($"the first {cut} bytes give {prefix}, the whole input {whole}");
                }

                break; // a driver stops at the first final outcome
            }
        }

        if (whole.Head is { } head)
        {
            CheckRequest(head, context);
            CheckResponse(head, context);
        }
    }

    private static void CheckConsistent(HeadParse parse, ReadOnlySpan<byte> input, int maxHead)
    {
        bool ok = parse.Status switch
        {
            OperationStatus.Done => parse.Head is not null && parse.Error == HttpHeadError.None && parse.HeadLength >= 4
                && parse.HeadLength <= Math.Min(input.Length, maxHead) && input.Slice(parse.HeadLength - 4, 4).SequenceEqual("\r\n\r\n"u8),
            OperationStatus.InvalidData => parse.Head is null && parse.Error != HttpHeadError.None,
            OperationStatus.NeedMoreData => parse.Head is null && parse.Error == HttpHeadError.None && input.Length < maxHead,
            _ => false,
        };
        if (!ok)
        {
            throw new OracleFailureException($"inconsistent outcome {parse} for {input.Length} B (bound {maxHead})");
        }
    }

    private static void CheckRequest(HttpHead head, FuzzContext context)
    {
        (string method, _, string version) = HeadParse.StartLine(head);
        HandshakeFailure failure = WebSocketUpgradeRequest.Validate(method, version, head, out WebSocketUpgradeRequest? request);
        context.Count(failure.IsFailure ? $"request refused {failure.StatusCode}" : "request accepted");
        if (failure.IsFailure != (request is null) || (failure.IsFailure && failure.StatusCode is not (400 or 405 or 426)))
        {
            throw new OracleFailureException($"request validation gave {failure} with request {(request is null ? "null" : "set")}");
        }

        if (request is not null
            && (method != "GET" || version != "HTTP/1.1" || !WebSocketHandshake.IsValidKey(request.Key.AsSpan())
                || string.IsNullOrWhiteSpace(request.Host) || head.Count("Host") != 1 || request.IsExtendedConnect
                || request.Subprotocols.Any(p => !HttpToken.IsToken(p))))
        {
            throw new OracleFailureException($"an invalid request was accepted: '{method} {version}' key '{request.Key}' host '{request.Host}'");
        }
    }

    private static void CheckResponse(HttpHead head, FuzzContext context)
    {
        string? subprotocol = null;
        bool accepted;
        try
        {
            subprotocol = Http1Handshake.ValidateResponse(head, HttpSeeds.Key, HttpSeeds.Offered);
            accepted = true;
        }
        catch (WebSocketHandshakeException)
        {
            accepted = false;
        }

        context.Count(accepted ? "response accepted" : "response refused");
        string status = HeadParse.StartLine(head).Second;
        if (accepted
            && (status != "101" || (subprotocol is not null && !HttpSeeds.Offered.Contains(subprotocol))
                || head["Sec-WebSocket-Accept"] != WebSocketHandshake.ComputeAccept(HttpSeeds.Key)))
        {
            throw new OracleFailureException($"an invalid response was accepted: status '{status}', subprotocol '{subprotocol}'");
        }
    }
}
