namespace WebSocketCodec.Fuzz;

/// <summary>
/// The HTTP/2 clients' check of the answer to an extended CONNECT (<see cref="ExtendedConnectResponse.Validate"/>, which
/// the SpanNetty and the HttpClient-based clients both call) over mutated answers
/// (<see cref="ExtendedConnectResponseSeeds"/>), under random offers (subprotocols, permessage-deflate or not).
/// Oracles: it accepts exactly the answers <see cref="ExtendedConnectResponseModel"/> accepts, throws nothing but
/// <see cref="WebSocketHandshakeException"/> (carrying a three-digit status), and returns the subprotocol selected.
/// </summary>
public sealed class ExtendedConnectResponseTarget : IFuzzTarget
{
    private static readonly string[][] Offers = [[], HttpSeeds.Offered, ["superchat"]];

    /// <inheritdoc />
    public string Name => "h2response";

    /// <inheritdoc />
    public Mutator Mutator { get; } = new(ExtendedConnectResponseSeeds.All, frames: false, ExtendedConnectResponseSeeds.Dictionary);

    /// <inheritdoc />
    public bool IsDocumented(Exception exception) => false;

    /// <inheritdoc />
    public void Run(CorpusEntry entry, byte[] input, FuzzContext context)
    {
        ArgumentNullException.ThrowIfNull(input);
        ArgumentNullException.ThrowIfNull(context);
        FuzzRng rng = context.Rng;
        (string first, string? second, List<KeyValuePair<string, string>> fields) = ExtendedConnectSeeds.Parse(input);
        string? status = first == "-" ? null : first;
        bool endStream = second == "end";
        var options = new WebSocketClientOptions
        {
            Subprotocols = rng.Pick(Offers),
            Deflate = rng.OneIn(2) ? null : new PerMessageDeflateOptions
            {
                OwnContextTakeover = rng.OneIn(2),
                PeerContextTakeover = !rng.OneIn(4),
                PeerMaxWindowBits = rng.OneIn(4) ? rng.Next(8, 16) : null,
            },
        };
        DeflateModelParameters? deflateOffer = options.Deflate is null ? null
            : PerMessageDeflateModel.Read(ExtensionListModel.Parse(PerMessageDeflateNegotiation.CreateOffer(options.Deflate))[0], response: false);
        string? problem = ExtendedConnectResponseModel.Problem(status, endStream, fields, options.Subprotocols, deflateOffer);
        string[] protocols = [.. Values(fields, "sec-websocket-protocol")];
        string? subprotocol = null;
        WebSocketHandshakeException? refused = null;
        try
        {
            subprotocol = ExtendedConnectResponse.Validate(
                status, rng.OneIn(2) ? null : "Reason", endStream, protocols, [.. Values(fields, "sec-websocket-extensions")], options, "server", out _);
        }
        catch (WebSocketHandshakeException exception)
        {
            refused = exception;
        }

        context.Count(problem is null ? "accepted" : "refused: " + problem);
        if ((refused is null) != (problem is null))
        {
            throw new OracleFailureException(
                $"the library {(refused is null ? "accepted" : $"refused ({refused.Message})")} :status '{status}' {(endStream ? "end" : "open")} [{string.Join("; ", fields.Select(f => f.Key + ": " + f.Value))}] offering [{string.Join(", ", options.Subprotocols)}]{(options.Deflate is null ? string.Empty : " and deflate")}; the model: {problem ?? "valid"}");
        }

        if (refused is not null && status is { Length: 3 } && status.All(char.IsAsciiDigit) && status != "200" && refused.StatusCode != int.Parse(status, System.Globalization.CultureInfo.InvariantCulture))
        {
            throw new OracleFailureException($"the refusal of :status {status} carries {refused.StatusCode}");
        }

        if (refused is null && subprotocol != protocols.SingleOrDefault()?.Trim(' ', '\t'))
        {
            throw new OracleFailureException($"the library returned the subprotocol '{subprotocol}', the answer selected '{protocols.SingleOrDefault()}'");
        }
    }

    private static IEnumerable<string> Values(List<KeyValuePair<string, string>> fields, string name) =>
        fields.Where(f => string.Equals(f.Key, name, StringComparison.OrdinalIgnoreCase)).Select(f => f.Value);
}
