using System.Globalization;

namespace WebSocketCodec;

/// <summary>Reads an HTTP <c>Retry-After</c> field (RFC 9110 section 10.2.3): for a client of your own that waits as a
/// refusing server asks. The packaged clients read it into
/// <see cref="WebSocketHandshakeException.RetryAfter"/>.</summary>
/// <remarks>It takes delay-seconds, or an HTTP-date turned into the delay from now (none when the date has passed).
/// Anything else is no hint, never an error: a client falls back to its own back-off.</remarks>
public static class RetryAfterHeader
{
    /// <summary>The longest hint taken: a day. A larger one (or a date further away) is capped to it.</summary>
    public static readonly TimeSpan MaxDelay = TimeSpan.FromDays(1);

    /// <summary>Parses <paramref name="value"/> as of <paramref name="now"/>.</summary>
    /// <returns>The delay it asks for, or null when there is none or it cannot be read.</returns>
    public static TimeSpan? Parse(string? value, DateTimeOffset now)
    {
        if (string.IsNullOrWhiteSpace(value))
        {
            return null;
        }

        string text = value.Trim();
        if (long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out long seconds))
        {
            return seconds >= MaxDelay.TotalSeconds ? MaxDelay : TimeSpan.FromSeconds(seconds);
        }

        if (DateTimeOffset.TryParseExact(text, "r", CultureInfo.InvariantCulture, DateTimeStyles.AssumeUniversal, out DateTimeOffset date))
        {
            TimeSpan delay = date - now;
            return delay <= TimeSpan.Zero ? TimeSpan.Zero : delay > MaxDelay ? MaxDelay : delay;
        }

        return null;
    }
}
