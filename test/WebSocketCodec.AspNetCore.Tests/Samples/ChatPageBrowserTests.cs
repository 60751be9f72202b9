using WebSocketCodec.Samples.Chat;
using Xunit.Abstractions;
using static WebSocketCodec.Testing.ChatPageScripts;

namespace WebSocketCodec.AspNetCore.Tests.Samples;

/// <summary>Two headless Chromium pages chat through the sample's own page: each joins the room from the page's query
/// (<c>?nick=...&amp;room=...</c>), types into the page's form, and shows the other's message, in the same order on both.
/// Over https the browsers open their websockets as HTTP/2 extended CONNECTs, over http as HTTP/1.1 upgrades.</summary>
public sealed class ChatPageBrowserTests(ChromiumFixture chromium, ITestOutputHelper output) : IClassFixture<ChromiumFixture>
{
    private static readonly TimeSpan Wait = TimeSpan.FromSeconds(60);

    [SkippableTheory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task TwoPagesSeeEachOthersMessages(bool tls)
    {
        Skip.If(chromium.SkipReason is not null, chromium.SkipReason);

        await using ChatServerHost server = await ChatServerHost.StartAsync(new ChatOptions { Port = 0, Tls = tls });
        string baseUrl = tls ? $"https://localhost:{server.BaseUrl.Port}/" : server.BaseUrl.ToString();
        await using HeadlessChromium ann = await HeadlessChromium.OpenAsync(chromium.Executable!, new Uri(baseUrl + "?nick=ann&room=r%C3%A9union"));
        Assert.Equal("connected to réunion", await ann.WaitForAsync(State, "connected", Wait));
        await using HeadlessChromium bob = await HeadlessChromium.OpenAsync(chromium.Executable!, new Uri(baseUrl + "?nick=bob&room=r%C3%A9union"));
        Assert.Equal("connected to réunion", await bob.WaitForAsync(State, "connected", Wait));
        Assert.Equal(2, server.Rooms.Find("réunion")?.MemberCount);

        await ann.WaitForAsync(Say("hello from ann 😀"), "sent", Wait);
        await bob.WaitForAsync(Lines(1), "[", Wait); // bob saw it before answering
        await bob.WaitForAsync(Say("hi <b>ann</b>"), "sent", Wait);

        string annSaw = await ann.WaitForAsync(Lines(2), "[", Wait);
        string bobSaw = await bob.WaitForAsync(Lines(2), "[", Wait);
        output.WriteLine(annSaw);
        const string Expected = """["ann: hello from ann 😀","bob: hi <b>ann</b>"]""";
        Assert.Equal(Expected, annSaw);
        Assert.Equal(Expected, bobSaw);
    }
}
