namespace WebSocketCodec.Fuzz;

/// <summary>
/// The HTTP/1.1 client's check of the server's 101 (<see cref="Http1Handshake.ValidateResponse(HttpHead, string, IReadOnlyCollection{string})"/>,
/// and its overload with permessage-deflate offered) over mutated response heads, parsed by
/// <see cref="HttpHeadParser"/> (a head cut short is ended with a blank line). Oracles: it accepts exactly the heads <see cref="ClientHandshakeModel"/> accepts,
/// throws nothing but <see cref="WebSocketHandshakeException"/> (carrying the server's status when it is a number from
/// 100 to 999), and returns the subprotocol the head selected.
/// </summary>
public sealed class Http101Target : IFuzzTarget
{
    private static readonly string[][] Offers = [[], HttpSeeds.Offered, ["superchat"]];

    /// <inheritdoc />
    public string Name => "http101";

    /// <inheritdoc />
    public Mutator Mutator { get; } = new(Http101Seeds.All, frames: false, Http101Seeds.Dictionary);

    /// <inheritdoc />
    public bool IsDocumented(Exception exception) => false;

    /// <inheritdoc />
    public void Run(CorpusEntry entry, byte[] input, FuzzContext context)
    {
        ArgumentNullException.ThrowIfNull(input);
        ArgumentNullException.ThrowIfNull(context);
        FuzzRng rng = context.Rng;
        HeadParse parse = HeadParse.Of(input, HttpHeadParser.DefaultMaxHeadLength, HttpHeadParser.DefaultMaxFields);
        if (parse.Status == System.Buffers.OperationStatus.NeedMoreData)
        {
            // A mutation that broke the blank line: end the head here, so the fields still reach the check.
            parse = HeadParse.Of([.. input, .. "\r\n\r\n"u8], HttpHeadParser.DefaultMaxHeadLength, HttpHeadParser.DefaultMaxFields);
        }

        if (parse.Head is not { } head)
        {
            context.Count("not a head");
            return;
        }

        string[] offered = rng.Pick(Offers);
        PerMessageDeflateOptions? deflate = rng.OneIn(2) ? null : new()
        {
            OwnContextTakeover = rng.OneIn(2),
            PeerContextTakeover = !rng.OneIn(4),
            PeerMaxWindowBits = rng.OneIn(4) ? rng.Next(8, 16) : null,
        };
        DeflateModelParameters? deflateOffer = deflate is null ? null
            : PerMessageDeflateModel.Read(ExtensionListModel.Parse(PerMessageDeflateNegotiation.CreateOffer(deflate))[0], response: false);
        (string first, string second, _) = HeadParse.StartLine(head);
        string? problem = ClientHandshakeModel.Problem(first, second, head.Fields, HttpSeeds.Key, offered, deflateOffer);
        string? subprotocol = null;
        WebSocketHandshakeException? refused = null;
        try
        {
            subprotocol = deflate is null
                ? Http1Handshake.ValidateResponse(head, HttpSeeds.Key, offered)
                : Http1Handshake.ValidateResponse(head, HttpSeeds.Key, offered, deflate, out _);
        }
        catch (WebSocketHandshakeException exception)
        {
            refused = exception;
        }

        context.Count(problem is null ? "accepted" : "refused " + problem[..problem.IndexOf(':', StringComparison.Ordinal)]);
        if ((refused is null) != (problem is null))
        {
            throw new OracleFailureException(
                $"the library {(refused is null ? "accepted" : $"refused ({refused.Message})")} '{first} {second}' with [{string.Join("; ", head.Fields.Select(f => f.Key + ": " + f.Value))}], offered [{string.Join(", ", offered)}] and {(deflate is null ? "no deflate" : "deflate")}; the model: {problem ?? "valid"}");
        }

        if (refused is not null)
        {
            // A status only on a status line (RFC 9112 section 4: it starts with the HTTP version), three digits, not 0xx.
            int? status = first.StartsWith("HTTP/", StringComparison.Ordinal) && second.Length == 3 && second.All(char.IsAsciiDigit) && second[0] != '0'
                ? int.Parse(second, System.Globalization.CultureInfo.InvariantCulture) : null;
            if (refused.StatusCode != status)
            {
                throw new OracleFailureException($"the refusal carries status {refused.StatusCode}, the head says '{first} {second}'");
            }
        }
        else
        {
            string? selected = head.Fields.Where(f => f.Key.Equals("Sec-WebSocket-Protocol", StringComparison.OrdinalIgnoreCase)).Select(f => f.Value).SingleOrDefault();
            if (subprotocol != selected)
            {
                throw new OracleFailureException($"the library returned the subprotocol '{subprotocol}', the head selected '{selected}'");
            }
        }
    }
}
