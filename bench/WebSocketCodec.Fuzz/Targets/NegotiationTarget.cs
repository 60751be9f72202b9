using System.Text;

namespace WebSocketCodec.Fuzz;

/// <summary>
/// permessage-deflate's negotiation against <see cref="PerMessageDeflateModel"/>. The input, read as Latin-1 lines
/// joined with ", " (fields of one list), is both a client's offer and a server's answer. Oracles: the server
/// (<see cref="PerMessageDeflateNegotiation.TryAccept"/> under random options) accepts exactly when the model finds an
/// acceptable offer, its answer is one the model finds valid for that offer and the parameters it settled are what
/// its answer says; the client (<see cref="Http1Handshake.ValidateResponse(HttpHead, string, IReadOnlyCollection{string}, PerMessageDeflateOptions?, out DeflateParameters?)"/>
/// with deflate offered under random options, and <see cref="PerMessageDeflateNegotiation.TryParseAnswer"/>) accepts
/// the input as an answer exactly when the model finds it valid for the offer
/// (<see cref="PerMessageDeflateNegotiation.CreateOffer"/>), which the model must find acceptable; and the round trip
/// (that offer, the server's answer, the client's check) succeeds with both sides settling the same parameters.
/// Nothing may throw.
/// </summary>
public sealed class NegotiationTarget : IFuzzTarget
{
    private const string Key = "dGhlIHNhbXBsZSBub25jZQ==";

    /// <inheritdoc />
    public string Name => "negotiation";

    /// <inheritdoc />
    public Mutator Mutator { get; } = new(NegotiationSeeds.All, frames: false, NegotiationSeeds.Dictionary);

    /// <inheritdoc />
    public bool IsDocumented(Exception exception) => false;

    /// <inheritdoc />
    public void Run(CorpusEntry entry, byte[] input, FuzzContext context)
    {
        ArgumentNullException.ThrowIfNull(input);
        ArgumentNullException.ThrowIfNull(context);
        FuzzRng rng = context.Rng;
        string[] fields = Encoding.Latin1.GetString(input).Split('\n');
        string header = string.Join(", ", fields);
        CheckServer(header, RandomOptions(rng), context);
        // Half the clients ask nothing of the server, so more answers are valid.
        PerMessageDeflateOptions client = rng.OneIn(2) ? RandomOptions(rng) : new() { OwnContextTakeover = rng.OneIn(2), PeerContextTakeover = true };
        CheckClient(fields, header, client, context);
        RoundTrip(client, RandomOptions(rng));
    }

    private static PerMessageDeflateOptions RandomOptions(FuzzRng rng) => new()
    {
        OwnContextTakeover = rng.OneIn(2),
        PeerContextTakeover = rng.OneIn(2),
        PeerMaxWindowBits = rng.OneIn(2) ? null : rng.Next(8, 16),
    };

    private static void CheckServer(string header, PerMessageDeflateOptions options, FuzzContext context)
    {
        List<ModelElement> elements = ExtensionListModel.Parse(header);
        int expected = PerMessageDeflateModel.FirstAcceptable(elements);
        bool accepted = PerMessageDeflateNegotiation.TryAccept(header, options, out DeflateParameters parameters, out string? answer);
        context.Count(accepted ? $"server accepted offer {Math.Min(expected, 2)}{(expected >= 2 ? "+" : string.Empty)}" : "server declined");
        if (accepted != (expected >= 0))
        {
            throw new OracleFailureException($"the server {(accepted ? "accepted" : "declined")} '{header}', the model {(expected >= 0 ? $"accepts offer {expected}" : "accepts none")}");
        }

        if (!accepted)
        {
            return;
        }

        DeflateModelParameters offer = PerMessageDeflateModel.Read(elements[expected], response: false)!;
        if (PerMessageDeflateModel.ResponseProblem(offer, answer!, out DeflateModelParameters? settled) is { } problem)
        {
            throw new OracleFailureException($"the server's answer '{answer}' to offer {expected} of '{header}' is not valid: {problem}");
        }

        CheckSettled(parameters, settled!, $"the server's answer '{answer}'", offeredClientBits: offer.ClientMaxWindowBits);
    }

    private static void CheckClient(string[] fields, string header, PerMessageDeflateOptions options, FuzzContext context)
    {
        string offerText = PerMessageDeflateNegotiation.CreateOffer(options);
        List<ModelElement> offers = ExtensionListModel.Parse(offerText);
        if (offers.Count != 1 || PerMessageDeflateModel.FirstAcceptable(offers) != 0)
        {
            throw new OracleFailureException($"the client's offer '{offerText}' is not an acceptable offer");
        }

        DeflateModelParameters offer = PerMessageDeflateModel.Read(offers[0], response: false)!;
        string? problem = PerMessageDeflateModel.ResponseProblem(offer, header, out DeflateModelParameters? settled);
        bool parsed = PerMessageDeflateNegotiation.TryParseAnswer(header, options, out DeflateParameters parameters, out string? error);
        context.Count(parsed ? "client accepted the answer" : "client refused the answer");
        if (parsed != (problem is null))
        {
            throw new OracleFailureException($"the client {(parsed ? "accepted" : $"refused ({error})")} the answer '{header}' to '{offerText}'; the model: {problem ?? "valid"}");
        }

        if (parsed)
        {
            CheckSettled(parameters, settled!, $"the client's reading of '{header}'", clientMayRefuseContext: !options.OwnContextTakeover);
        }

        var head = new HttpHead("HTTP/1.1", "101", "Switching Protocols",
        [
            new("Upgrade", "websocket"), new("Connection", "Upgrade"), new("Sec-WebSocket-Accept", WebSocketHandshake.ComputeAccept(Key)),
            .. fields.Select(f => new KeyValuePair<string, string>("Sec-WebSocket-Extensions", f)),
        ]);
        bool valid;
        DeflateParameters? deflate = null;
        try
        {
            Http1Handshake.ValidateResponse(head, Key, [], options, out deflate);
            valid = true;
        }
        catch (WebSocketHandshakeException)
        {
            valid = false;
        }

        if (valid != parsed || (valid && deflate != parameters))
        {
            throw new OracleFailureException($"ValidateResponse {(valid ? $"accepted ({deflate})" : "refused")} the fields that TryParseAnswer {(parsed ? $"accepted ({parameters})" : "refused")}");
        }
    }

    private static void RoundTrip(PerMessageDeflateOptions client, PerMessageDeflateOptions server)
    {
        string offer = PerMessageDeflateNegotiation.CreateOffer(client);
        if (!PerMessageDeflateNegotiation.TryAccept(offer, server, out DeflateParameters serverSide, out string? answer))
        {
            throw new OracleFailureException($"the server declined the client's offer '{offer}'");
        }

        if (!PerMessageDeflateNegotiation.TryParseAnswer(answer!, client, out DeflateParameters clientSide, out string? error))
        {
            throw new OracleFailureException($"the client refused the server's answer '{answer}' to '{offer}': {error}");
        }

        if (serverSide.ServerNoContextTakeover != clientSide.ServerNoContextTakeover || serverSide.ServerMaxWindowBits != clientSide.ServerMaxWindowBits
            || serverSide.ClientMaxWindowBits != clientSide.ClientMaxWindowBits || (serverSide.ClientNoContextTakeover && !clientSide.ClientNoContextTakeover))
        {
            throw new OracleFailureException($"'{offer}' answered '{answer}': the server settled {serverSide}, the client {clientSide}");
        }
    }

    /// <summary>The parameters a side settled are what the answer says (a client that keeps no context of its own
    /// may add client_no_context_takeover). The library's server takes a client_max_window_bits value the offer
    /// gave, and the answer does not repeat, as the client's window: RFC 7692 §7.1.2.2 makes the offer's value a
    /// hint, so the client may still use 15 bits; the server's inflater reads any window, so nothing depends on it
    /// (a documented choice, not a failure).</summary>
    private static void CheckSettled(
        DeflateParameters parameters, DeflateModelParameters answer, string what, bool clientMayRefuseContext = false, int? offeredClientBits = null)
    {
        bool same = parameters.ServerNoContextTakeover == answer.ServerNoContextTakeover
            && (parameters.ClientNoContextTakeover == answer.ClientNoContextTakeover || (clientMayRefuseContext && parameters.ClientNoContextTakeover))
            && parameters.ServerMaxWindowBits == (answer.ServerMaxWindowBits ?? 15)
            && parameters.ClientMaxWindowBits == (answer.ClientMaxWindowBits ?? offeredClientBits ?? 15);
        if (!same)
        {
            throw new OracleFailureException($"{what} settled {parameters}, the model reads {answer}");
        }
    }
}
