namespace WebSocketCodec;

/// <summary>Which close status codes may appear in a Close frame (RFC 6455 §7.4 and the IANA registry): check a code of
/// your own here (an application's 3000-4999, say) before you send it.</summary>
public static class CloseStatusRules
{
    /// <summary>
    /// Whether <paramref name="code"/> may be sent in, or accepted from, a Close frame: 1000-1003 and 1007-1014
    /// (registered), or 3000-4999 (libraries, frameworks and applications). 1004 is reserved, 1005, 1006 and 1015 are
    /// for local reporting only, 1016-2999 are unassigned, and everything below 1000 or above 4999 is invalid.
    /// </summary>
    public static bool IsValidOnWire(int code) => code switch
    {
        >= 1000 and <= 1003 => true,
        >= 1007 and <= 1014 => true,
        >= 3000 and <= 4999 => true,
        _ => false,
    };
}
