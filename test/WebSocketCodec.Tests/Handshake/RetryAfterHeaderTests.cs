namespace WebSocketCodec.Tests.Handshake;

public sealed class RetryAfterHeaderTests
{
    private static readonly DateTimeOffset Now = new(2026, 11, 28, 12, 0, 0, TimeSpan.Zero);

    [Theory]
    [InlineData("120", 120.0)]
    [InlineData(" 0 ", 0.0)]
    [InlineData("Sat, 28 Nov 2026 12:00:30 GMT", 30.0)]
    [InlineData("Sat, 28 Nov 2026 11:00:00 GMT", 0.0)] // passed: no wait
    [InlineData("99999999999", 86400.0)] // capped at a day
    [InlineData("Mon, 28 Dec 2026 12:00:00 GMT", 86400.0)]
    public void DelaySecondsAndDatesBecomeADelay(string value, double seconds) =>
        Assert.Equal(TimeSpan.FromSeconds(seconds), RetryAfterHeader.Parse(value, Now));

    [Theory]
    [InlineData(null)]
    [InlineData("")]
    [InlineData("-5")]
    [InlineData("1.5")]
    [InlineData("soon")]
    [InlineData("2026-11-28T12:00:30Z")]
    public void AnythingElseIsNoHint(string? value) => Assert.Null(RetryAfterHeader.Parse(value, Now));
}
