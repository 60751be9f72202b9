namespace WebSocketCodec.Fuzz;

/// <summary>The permessage-deflate parameters of a modelled offer or response.</summary>
/// <param name="ServerNoContextTakeover">server_no_context_takeover is present.</param>
/// <param name="ClientNoContextTakeover">client_no_context_takeover is present.</param>
/// <param name="ServerMaxWindowBits">server_max_window_bits' value, or null when absent.</param>
/// <param name="ClientMaxWindowBitsGiven">client_max_window_bits is present.</param>
/// <param name="ClientMaxWindowBits">client_max_window_bits' value, or null when absent or without one.</param>
public sealed record DeflateModelParameters(
    bool ServerNoContextTakeover, bool ClientNoContextTakeover, int? ServerMaxWindowBits, bool ClientMaxWindowBitsGiven, int? ClientMaxWindowBits);

/// <summary>
/// An independent model of RFC 7692 §7.1 (permessage-deflate's parameters) over <see cref="ExtensionListModel"/>,
/// written from the RFC for the fuzzer. An offer is acceptable when every parameter is one of the four, none is
/// repeated, the no-context ones have no value, <c>server_max_window_bits</c> has one and <c>client_max_window_bits</c>
/// may (a value is 1*DIGIT without leading zeros, 8 to 15: §7.1.2); a server accepts the first acceptable
/// permessage-deflate offer of the list (§5.1: the client lists offers in order of preference; the server declines
/// the ones it cannot accept and RFC 6455 §9.1 lets it pick any: the first is the preference). A response is valid for
/// an offer when it is one well-formed element naming permessage-deflate with valid parameters
/// (<c>client_max_window_bits</c> then needs a value), keeps <c>server_no_context_takeover</c> if offered (§7.1.1.1),
/// has <c>server_max_window_bits</c> no larger than offered when offered (§7.1.2.1), and has
/// <c>client_max_window_bits</c> only if offered and no larger than an offered value (§7.1.2.2).
/// Choices the RFCs leave open, made as the library documents them: names compare case-insensitively (RFC 6455 does
/// not say); a response without <c>server_max_window_bits</c> to an offer of <c>server_max_window_bits=15</c> is
/// valid (§7.1.2.1 says a server accepts the parameter by including it, but an absent one means 15, what was asked).
/// </summary>
public static class PerMessageDeflateModel
{
    /// <summary>The extension's name.</summary>
    public const string Name = "permessage-deflate";

    /// <summary>Whether <paramref name="name"/> is permessage-deflate.</summary>
    public static bool IsDeflate(string name) => string.Equals(name, Name, StringComparison.OrdinalIgnoreCase);

    /// <summary>The parameters of an offer (<paramref name="response"/> false) or a response, or null when one is
    /// unknown, repeated or has a bad value.</summary>
    public static DeflateModelParameters? Read(ModelElement element, bool response)
    {
        ArgumentNullException.ThrowIfNull(element);
        if (element.Malformed)
        {
            return null;
        }

        bool snct = false, cnct = false, cmwbGiven = false;
        int? smwb = null, cmwb = null;
        var seen = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        foreach (ModelParameter p in element.Parameters)
        {
            if (!seen.Add(p.Name))
            {
                return null; // §7.1: a parameter at most once
            }

            switch (p.Name.ToLowerInvariant())
            {
                case "server_no_context_takeover" when p.Value is null:
                    snct = true;
                    break;
                case "client_no_context_takeover" when p.Value is null:
                    cnct = true;
                    break;
                case "server_max_window_bits" when TryWindow(p.Value, out int s):
                    smwb = s;
                    break;
                case "client_max_window_bits" when p.Value is null && !response:
                    cmwbGiven = true;
                    break;
                case "client_max_window_bits" when TryWindow(p.Value, out int c):
                    cmwbGiven = true;
                    cmwb = c;
                    break;
                default:
                    return null;
            }
        }

        return new DeflateModelParameters(snct, cnct, smwb, cmwbGiven, cmwb);
    }

    /// <summary>The index, among <paramref name="elements"/>, of the offer a server accepts, or -1.</summary>
    public static int FirstAcceptable(IReadOnlyList<ModelElement> elements)
    {
        ArgumentNullException.ThrowIfNull(elements);
        for (int i = 0; i < elements.Count; i++)
        {
            if (!elements[i].Malformed && IsDeflate(elements[i].Name) && Read(elements[i], response: false) is not null)
            {
                return i;
            }
        }

        return -1;
    }

    /// <summary>Why <paramref name="header"/> is not a valid response to <paramref name="offer"/>, or null when it is;
    /// <paramref name="settled"/> is the response's parameters when valid.</summary>
    public static string? ResponseProblem(DeflateModelParameters offer, string header, out DeflateModelParameters? settled)
    {
        ArgumentNullException.ThrowIfNull(offer);
        settled = null;
        List<ModelElement> elements = ExtensionListModel.Parse(header);
        if (elements.Count != 1)
        {
            return $"{elements.Count} elements";
        }

        ModelElement element = elements[0];
        if (element.Malformed || !IsDeflate(element.Name))
        {
            return element.Malformed ? "malformed" : $"names {element.Name}";
        }

        DeflateModelParameters? r = Read(element, response: true);
        string? problem = r switch
        {
            null => "an unknown, repeated or invalid parameter",
            _ when offer.ServerNoContextTakeover && !r.ServerNoContextTakeover => "server_no_context_takeover offered, not answered",
            _ when offer.ServerMaxWindowBits is { } n && (r.ServerMaxWindowBits ?? 15) > n => "server_max_window_bits missing or over the offer",
            _ when r.ClientMaxWindowBitsGiven && !offer.ClientMaxWindowBitsGiven => "client_max_window_bits not offered",
            _ when offer.ClientMaxWindowBits is { } v && r.ClientMaxWindowBits > v => "client_max_window_bits over the offer",
            _ => null,
        };
        settled = problem is null ? r : null;
        return problem;
    }

    /// <summary>Reads a window size: 1*DIGIT, no leading zero, 8 to 15.</summary>
    public static bool TryWindow(string? value, out int bits)
    {
        bits = 0;
        if (value is null || value.Length is < 1 or > 2 || value[0] == '0' || !value.All(char.IsAsciiDigit))
        {
            return false;
        }

        bits = int.Parse(value, System.Globalization.CultureInfo.InvariantCulture);
        return bits is >= 8 and <= 15;
    }
}
