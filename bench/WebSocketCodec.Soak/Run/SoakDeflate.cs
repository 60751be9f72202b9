namespace WebSocketCodec.Soak;

/// <summary>
/// permessage-deflate in the soak. The servers accept it with context takeover allowed both ways and compress every
/// echo (threshold 0); each deflate websocket offers one of three variants, in turn by segment and connection: context
/// takeover both ways; no context takeover either way; no context takeover and the server's window limited to 9 bits
/// (our server then compresses only echoes of up to 512 bytes). The variant asked for must be the one negotiated: a
/// deflate websocket that ends up without the extension, or with other parameters, is a failure.
/// </summary>
public static class SoakDeflate
{
    /// <summary>The server window bits of the third variant.</summary>
    public const int SmallWindowBits = 9;

    /// <summary>What the soak's servers accept.</summary>
    public static PerMessageDeflateOptions Server { get; } = new() { OwnContextTakeover = true, PeerContextTakeover = true, Threshold = 0 };

    /// <summary>The variant of a websocket: 0, 1 or 2, in turn by segment and the websocket's ordinal within its
    /// transport, starting at another one on each deflate transport (so that even one websocket each covers all
    /// three).</summary>
    public static int Variant(string transport, long segment, int ordinal) => (int)((FirstVariant(transport) + segment + ordinal) % 3);

    /// <summary>The variant of <paramref name="transport"/>'s first websocket in segment 0.</summary>
    public static int FirstVariant(string transport) => transport switch
    {
        SoakOptions.H2Deflate => 1,
        SoakOptions.NodeDeflate => 2,
        _ => 0,
    };

    /// <summary>The variant's name, for failures and the report.</summary>
    public static string Name(int variant) => variant switch
    {
        0 => "context takeover both ways",
        1 => "no context takeover",
        _ => $"no context takeover, server window {SmallWindowBits} bits",
    };

    /// <summary>Our client's offer for <paramref name="variant"/>: every whole message compressed (threshold 0).</summary>
    public static PerMessageDeflateOptions Offer(int variant) => variant switch
    {
        0 => new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true, Threshold = 0 },
        1 => new PerMessageDeflateOptions { Threshold = 0 },
        _ => new PerMessageDeflateOptions { PeerMaxWindowBits = SmallWindowBits, Threshold = 0 },
    };

    /// <summary>Why what was negotiated is not what <paramref name="variant"/> asked for, or null when it is.</summary>
    public static string? Mismatch(DeflateParameters? negotiated, int variant)
    {
        if (negotiated is not { } p)
        {
            return $"permessage-deflate was offered ({Name(variant)}) but not negotiated";
        }

        bool takeover = variant == 0;
        int serverBits = variant == 2 ? SmallWindowBits : DeflateParameters.MaxWindowBits;
        return p.ServerNoContextTakeover == !takeover && p.ClientNoContextTakeover == !takeover && p.ServerMaxWindowBits == serverBits
            ? null
            : $"permessage-deflate negotiated {p} where {Name(variant)} was offered";
    }
}
