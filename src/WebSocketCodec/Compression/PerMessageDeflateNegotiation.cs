using System.Globalization;
using System.Text;

namespace WebSocketCodec;

/// <summary>permessage-deflate's negotiation (RFC 7692 §5, §7.1) on <c>Sec-WebSocket-Extensions</c> values: for a
/// server or client of your own that runs its own handshake; the packaged ones negotiate when their <c>Deflate</c>
/// option is set.</summary>
/// <remarks>The server accepts the first offer it supports, in the client's order of preference, and declines the
/// others (an unknown or duplicate parameter, a missing or invalid value); the client offers, then checks the answer
/// and fails the connection on a bad one.</remarks>
public static class PerMessageDeflateNegotiation
{
    /// <summary>The extension's token.</summary>
    public const string Name = "permessage-deflate";

    private const string ServerNoContextTakeover = "server_no_context_takeover";
    private const string ClientNoContextTakeover = "client_no_context_takeover";
    private const string ServerMaxWindowBits = "server_max_window_bits";
    private const string ClientMaxWindowBits = "client_max_window_bits";

    /// <summary>Server: accepts the first permessage-deflate offer of <paramref name="header"/> it supports.</summary>
    /// <param name="header">The request's <c>Sec-WebSocket-Extensions</c> values, joined with commas (null: none).</param>
    /// <param name="options">What the server wants.</param>
    /// <param name="parameters">What was settled.</param>
    /// <param name="answer">The response's <c>Sec-WebSocket-Extensions</c> value.</param>
    /// <returns>Whether an offer was accepted.</returns>
    public static bool TryAccept(string? header, PerMessageDeflateOptions options, out DeflateParameters parameters, out string? answer)
    {
        ArgumentNullException.ThrowIfNull(options);
        parameters = default;
        answer = null;
        if (string.IsNullOrEmpty(header))
        {
            return false;
        }

        var list = new HeaderListEnumerator(header);
        while (list.MoveNext())
        {
            if (ExtensionOffer.TryParse(list.Current, out ExtensionOffer offer)
                && offer.Name.Equals(Name, StringComparison.OrdinalIgnoreCase)
                && TryAcceptOffer(offer, options, out parameters, out answer))
            {
                return true;
            }
        }

        return false; // a malformed element is one declined offer; the others are still considered
    }

    /// <summary>Client: the offer for <paramref name="options"/>. It always says <c>client_max_window_bits</c> (any
    /// window the server asks for is kept: messages too long for it go uncompressed).</summary>
    public static string CreateOffer(PerMessageDeflateOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var offer = new StringBuilder(Name).Append("; ").Append(ClientMaxWindowBits);
        if (!options.OwnContextTakeover)
        {
            offer.Append("; ").Append(ClientNoContextTakeover);
        }

        if (!options.PeerContextTakeover)
        {
            offer.Append("; ").Append(ServerNoContextTakeover);
        }

        if (options.PeerMaxWindowBits is { } bits)
        {
            offer.Append("; ").Append(ServerMaxWindowBits).Append('=').Append(bits.ToString(CultureInfo.InvariantCulture));
        }

        return offer.ToString();
    }

    /// <summary>Client: checks the server's answer to <see cref="CreateOffer"/>.</summary>
    /// <returns>Whether the answer is valid; <paramref name="error"/> says why not (the client then fails the
    /// connection).</returns>
    public static bool TryParseAnswer(string header, PerMessageDeflateOptions options, out DeflateParameters parameters, out string? error)
    {
        ArgumentNullException.ThrowIfNull(header);
        ArgumentNullException.ThrowIfNull(options);
        parameters = default;
        var list = new HeaderListEnumerator(header);
        if (!list.MoveNext() || !ExtensionOffer.TryParse(list.Current, out ExtensionOffer answer))
        {
            error = $"the server's Sec-WebSocket-Extensions '{header}' is malformed";
            return false;
        }

        if (!answer.Name.Equals(Name, StringComparison.OrdinalIgnoreCase) || list.MoveNext())
        {
            error = $"the server's Sec-WebSocket-Extensions '{header}' names an extension that was not offered";
            return false;
        }

        if (!TryRead(answer, out Offered settled) || (settled.ClientMaxWindowBitsGiven && settled.ClientMaxWindowBits is null))
        {
            error = $"the server's permessage-deflate answer '{header}' has an unknown, repeated or invalid parameter";
            return false;
        }

        if (!options.PeerContextTakeover && !settled.ServerNoContextTakeover)
        {
            error = "the server did not accept server_no_context_takeover, which was offered";
            return false;
        }

        if (options.PeerMaxWindowBits is { } limit && (settled.ServerMaxWindowBits ?? DeflateParameters.MaxWindowBits) > limit)
        {
            error = $"the server did not accept server_max_window_bits={limit}, which was offered";
            return false;
        }

        parameters = new DeflateParameters(
            settled.ServerNoContextTakeover,
            settled.ClientNoContextTakeover || !options.OwnContextTakeover,
            settled.ServerMaxWindowBits ?? DeflateParameters.MaxWindowBits,
            settled.ClientMaxWindowBits ?? DeflateParameters.MaxWindowBits);
        error = null;
        return true;
    }

    private static bool TryAcceptOffer(ExtensionOffer offer, PerMessageDeflateOptions options, out DeflateParameters parameters, out string? answer)
    {
        parameters = default;
        answer = null;
        if (!TryRead(offer, out Offered offered))
        {
            return false; // RFC 7692 §5: declined
        }

        int serverWindow = offered.ServerMaxWindowBits ?? DeflateParameters.MaxWindowBits;
        // .NET's compressor always uses a 15-bit window: with a smaller one required, the server compresses only
        // messages that fit in it, each without context (DeflateParameters.MaxCompressedMessageLength).
        bool serverNoContext = offered.ServerNoContextTakeover || !options.OwnContextTakeover || serverWindow < DeflateParameters.MaxWindowBits;
        bool clientNoContext = offered.ClientNoContextTakeover || !options.PeerContextTakeover;
        int clientWindow = offered.ClientMaxWindowBits ?? DeflateParameters.MaxWindowBits;
        bool limitClient = offered.ClientMaxWindowBitsGiven && options.PeerMaxWindowBits is { } wanted && wanted < clientWindow;
        if (limitClient)
        {
            clientWindow = options.PeerMaxWindowBits!.Value; // only when offered (§7.1.2.2)
        }

        var text = new StringBuilder(Name);
        if (serverNoContext)
        {
            text.Append("; ").Append(ServerNoContextTakeover);
        }

        if (clientNoContext)
        {
            text.Append("; ").Append(ClientNoContextTakeover);
        }

        if (offered.ServerMaxWindowBits is not null)
        {
            text.Append("; ").Append(ServerMaxWindowBits).Append('=').Append(serverWindow.ToString(CultureInfo.InvariantCulture));
        }

        if (limitClient)
        {
            text.Append("; ").Append(ClientMaxWindowBits).Append('=').Append(clientWindow.ToString(CultureInfo.InvariantCulture));
        }

        parameters = new DeflateParameters(serverNoContext, clientNoContext, serverWindow, clientWindow);
        answer = text.ToString();
        return true;
    }

    /// <summary>Reads the parameters of an offer or an answer: each known one at most once, with a value where one is
    /// required (a window of 8 to 15 bits, without leading zeros or a sign), none where none is allowed.</summary>
    private static bool TryRead(ExtensionOffer element, out Offered offered)
    {
        offered = default;
        ExtensionParameterEnumerator parameters = element.Parameters;
        while (parameters.MoveNext())
        {
            ReadOnlySpan<char> name = parameters.Name;
            if (name.Equals(ServerNoContextTakeover, StringComparison.OrdinalIgnoreCase))
            {
                if (offered.ServerNoContextTakeover || parameters.HasValue)
                {
                    return false;
                }

                offered.ServerNoContextTakeover = true;
            }
            else if (name.Equals(ClientNoContextTakeover, StringComparison.OrdinalIgnoreCase))
            {
                if (offered.ClientNoContextTakeover || parameters.HasValue)
                {
                    return false;
                }

                offered.ClientNoContextTakeover = true;
            }
            else if (name.Equals(ServerMaxWindowBits, StringComparison.OrdinalIgnoreCase))
            {
                if (offered.ServerMaxWindowBits is not null || !parameters.HasValue || !TryParseBits(parameters.Value, out int bits))
                {
                    return false;
                }

                offered.ServerMaxWindowBits = bits;
            }
            else if (name.Equals(ClientMaxWindowBits, StringComparison.OrdinalIgnoreCase))
            {
                if (offered.ClientMaxWindowBitsGiven)
                {
                    return false;
                }

                offered.ClientMaxWindowBitsGiven = true;
                if (parameters.HasValue)
                {
                    if (!TryParseBits(parameters.Value, out int bits))
                    {
                        return false;
                    }

                    offered.ClientMaxWindowBits = bits;
                }
            }
            else
            {
                return false; // not a parameter of this extension
            }
        }

        return !parameters.Malformed;
    }

    private static bool TryParseBits(ReadOnlySpan<char> quoted, out int bits)
    {
        bits = 0;
        // A quoted value comes with its escapes as sent; RFC 6455 §9.1 reads it unescaped ("1\0" is 10).
        Span<char> value = stackalloc char[2];
        int length = 0;
        for (int i = 0; i < quoted.Length; i++)
        {
            if (length == value.Length)
            {
                return false;
            }

            value[length++] = quoted[i] == '\\' && i + 1 < quoted.Length ? quoted[++i] : quoted[i];
        }

        value = value[..length];
        if (value.Length is < 1 or > 2 || value[0] == '0' || !int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out bits))
        {
            return false;
        }

        return bits is >= DeflateParameters.MinWindowBits and <= DeflateParameters.MaxWindowBits;
    }

    private struct Offered
    {
        public bool ServerNoContextTakeover;
        public bool ClientNoContextTakeover;
        public int? ServerMaxWindowBits;
        public bool ClientMaxWindowBitsGiven;
        public int? ClientMaxWindowBits;
    }
}
