using WebSocketCodec.Samples.EchoServer;
using WebSocketCodec.Samples.Http2Clients;

namespace WebSocketCodec.AspNetCore.Tests.Samples;

/// <summary>The <c>samples/Http2Clients</c> load: a hundred websockets over one HTTP/2 connection to the echo server,
/// every echo checked.</summary>
public sealed class Http2ClientsSampleTests
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task AHundredWebSocketsOverOneConnectionGetEveryEcho(bool tls)
    {
        await using EchoServerHost server = await EchoServerHost.StartAsync(new EchoServerOptions { Port = 0, Tls = tls });
        EchoLoadResult result = await EchoLoad.RunAsync(server.Url, webSockets: 100, messages: 5, size: 200, trustAnyCertificate: true, RawHttp.Timeout(60));
        Assert.Equal(500, result.Sent);
        Assert.Equal(500, result.Echoed);
        Assert.Equal(100, server.Statistics.Count(EchoStatistics.Http2ExtendedConnect));
    }
}
