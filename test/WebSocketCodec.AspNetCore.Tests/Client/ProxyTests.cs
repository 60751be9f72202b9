using System.Diagnostics;
using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Testing;

namespace WebSocketCodec.AspNetCore.Tests.Client;

/// <summary>
/// Both clients through a real HTTP proxy (npm's <c>proxy</c> package, installed by the fixture like the other node
/// peers): <c>ws://</c> and <c>wss://</c>, HTTP/1.1 and HTTP/2, with and without Basic credentials, wrong ones
/// (407), a server the proxy cannot reach, a SOCKS proxy (not supported, said so), and a proxy that never answers.
/// </summary>
public sealed class ProxyTests(NodeFixture node) : IClassFixture<NodeFixture>
{
    private static readonly SslClientAuthenticationOptions TrustAny = new() { RemoteCertificateValidationCallback = (_, _, _, _) => true };

    [SkippableTheory]
    [InlineData(false, false)]
    [InlineData(true, false)]
    [InlineData(false, true)]
    [InlineData(true, true)]
    public async Task AWebSocketGoesThroughTheProxysTunnel(bool tls, bool http2)
    {
        await SkipUnlessProxyInstalledAsync();
        await using MessageLogServer server = await MessageLogServer.StartAsync(
            sharedPort: http2 && !tls, tls: tls, listen: http2 && tls ? listen => listen.Protocols = HttpProtocols.Http1AndHttp2 : null);
        await using ProxyProcess proxy = await ProxyProcess.StartAsync(node, credentials: null);
        var options = new WebSocketClientOptions { Proxy = new WebProxy(proxy.Url), Tls = tls ? TrustAny : null };
        await using MessageWebSocket webSocket = await ConnectAsync(server.Url("/log"), options, http2);
        await webSocket.SendTextAsync("through");
        using WebSocketMessage? echo = await webSocket.ReceiveAsync().AsTask().WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal("through", echo!.GetText());
        Assert.Equal($"CONNECT 127.0.0.1:{server.Port} authorized", await proxy.NextLineAsync());
    }

    [SkippableTheory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task CredentialsComeFromTheProxyOrItsUri(bool http2)
    {
        await SkipUnlessProxyInstalledAsync();
        await using MessageLogServer server = await MessageLogServer.StartAsync(sharedPort: http2);
        await using ProxyProcess proxy = await ProxyProcess.StartAsync(node, credentials: "user:s3cr:t");
        var withCredentials = new WebProxy(proxy.Url) { Credentials = new NetworkCredential("user", "s3cr:t") };
        await using (MessageWebSocket webSocket = await ConnectAsync(server.Url("/log"), new WebSocketClientOptions { Proxy = withCredentials }, http2))
        {
            Assert.Equal($"CONNECT 127.0.0.1:{server.Port} authorized", await proxy.NextLineAsync());
        }

        var inUri = new WebProxy(new Uri($"http://user:s3cr%3At@127.0.0.1:{proxy.Url.Port}"));
        await using (MessageWebSocket webSocket = await ConnectAsync(server.Url("/log"), new WebSocketClientOptions { Proxy = inUri }, http2))
        {
            Assert.Equal($"CONNECT 127.0.0.1:{server.Port} authorized", await proxy.NextLineAsync());
        }
    }

    [SkippableTheory]
    [InlineData(false, false)]
    [InlineData(false, true)]
    [InlineData(true, false)]
    [InlineData(true, true)]
    public async Task MissingOrWrongCredentialsAre407FromTheProxy(bool http2, bool wrong)
    {
        await SkipUnlessProxyInstalledAsync();
        await using MessageLogServer server = await MessageLogServer.StartAsync(sharedPort: http2);
        await using ProxyProcess proxy = await ProxyProcess.StartAsync(node, credentials: "user:secret");
        var webProxy = new WebProxy(proxy.Url) { Credentials = wrong ? new NetworkCredential("user", "guess") : null };
        var refusal = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => ConnectAsync(server.Url("/log"), new WebSocketClientOptions { Proxy = webProxy }, http2));
        Assert.Equal(407, refusal.StatusCode);
        Assert.True(refusal.FromProxy);
        Assert.Contains(wrong ? "refused the credentials" : "wants credentials", refusal.Message, StringComparison.Ordinal);
        Assert.False(ReconnectPolicy.Default(null, refusal));
        Assert.Equal(0, server.WebSockets);
    }

    [SkippableFact]
    public async Task AServerTheProxyCannotReachIsTheProxysStatusAndTheReconnectingClientWaitsForIt()
    {
        await SkipUnlessProxyInstalledAsync();
        await using ProxyProcess proxy = await ProxyProcess.StartAsync(node, credentials: null);
        int port = FreePorts.Next();
        var options = new WebSocketClientOptions { Proxy = new WebProxy(proxy.Url) };
        var refusal = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => WebSocketClient.ConnectAsync(new Uri($"ws://127.0.0.1:{port}/log"), options));
        Assert.True(refusal.FromProxy);
        Assert.InRange(refusal.StatusCode!.Value, 500, 599);

        await using var client = new ReconnectingWebSocket(new Uri($"ws://127.0.0.1:{port}/log"), new ReconnectingWebSocketOptions
        {
            Client = options,
            Backoff = new ReconnectBackoff { InitialDelay = TimeSpan.FromMilliseconds(20), MaxDelay = TimeSpan.FromMilliseconds(50) },
        });
        int waits = 0;
        client.Reconnecting += (_, _) => Interlocked.Increment(ref waits);
        Task started = client.StartAsync();
        await Eventually.True(() => Volatile.Read(ref waits) >= 2, TimeSpan.FromSeconds(10));
        await using MessageLogServer server = await MessageLogServer.StartAsync(port);
        await started.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(WebSocketSendOutcome.Sent, await client.SendTextAsync("late"));
        await Eventually.True(() => server.Received("late"), TimeSpan.FromSeconds(10));
    }

    [Theory]
    [InlineData("socks5://127.0.0.1:1080", false)]
    [InlineData("socks4://127.0.0.1:1080", true)]
    [InlineData("https://127.0.0.1:3129", false)]
    public async Task ASocksOrHttpsProxyIsRefusedNeverBypassed(string proxyUrl, bool http2)
    {
        int port = FreePorts.Next();
        var options = new WebSocketClientOptions { Proxy = new WebProxy(new Uri(proxyUrl)) };
        var error = await Assert.ThrowsAsync<NotSupportedException>(() => ConnectAsync(new Uri($"ws://127.0.0.1:{port}/log"), options, http2));
        Assert.Contains("not supported", error.Message, StringComparison.Ordinal);
        Assert.False(ReconnectPolicy.Default(null, error));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task AProxyThatNeverAnswersIsBoundedByTheHandshakeTimeout(bool http2)
    {
        using var silent = new TcpListener(IPAddress.Loopback, 0);
        silent.Start();
        var held = new List<Socket>();
        Task accepting = Task.Run(async () =>
        {
            try
            {
                while (true)
                {
                    held.Add(await silent.AcceptSocketAsync());
                }
            }
            catch (SocketException)
            {
                // stopped
            }
            catch (ObjectDisposedException)
            {
                // stopped
            }
        });
        var options = new WebSocketClientOptions
        {
            Proxy = new WebProxy(new Uri($"http://127.0.0.1:{((IPEndPoint)silent.LocalEndpoint).Port}")),
            HandshakeTimeout = TimeSpan.FromMilliseconds(500),
        };
        var started = Stopwatch.StartNew();
        var timeout = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => ConnectAsync(new Uri("ws://127.0.0.1:9/log"), options, http2));
        Assert.Contains("did not finish within", timeout.Message, StringComparison.Ordinal);
        Assert.True(started.Elapsed < TimeSpan.FromSeconds(10), $"{started.Elapsed}");
        silent.Stop();
        await accepting;
        held.ForEach(socket => socket.Dispose());
    }

    /// <summary>npm's proxy comes with ws from the same lock file; a folder installed before it was added gets it now.</summary>
    private async Task SkipUnlessProxyInstalledAsync()
    {
        Skip.If(node.SkipReason is not null, node.SkipReason);
        string? reason = await NpmInstall.EnsureAsync(node.Directory, "proxy");
        Skip.If(reason is not null, reason);
    }

    private static async Task<MessageWebSocket> ConnectAsync(Uri uri, WebSocketClientOptions options, bool http2)
    {
        if (!http2)
        {
            return await WebSocketClient.ConnectMessagesAsync(uri, options);
        }

        var invoker = new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler(options)); // left to the GC with its websocket
        return await WebSocketHttp2Client.ConnectMessagesAsync(invoker, uri, options);
    }

    /// <summary>node running npm's <c>proxy</c>; its stdout says each CONNECT.</summary>
    private sealed class ProxyProcess : IAsyncDisposable
    {
        private readonly Process _process;

        private ProxyProcess(Process process, int port)
        {
            _process = process;
            Url = new Uri($"http://127.0.0.1:{port}");
        }

        public Uri Url { get; }

        public static async Task<ProxyProcess> StartAsync(NodeFixture node, string? credentials)
        {
            (Process process, int port) = await node.StartEchoServerAsync("proxy-server.mjs", credentials ?? "");
            return new ProxyProcess(process, port);
        }

        public async Task<string?> NextLineAsync() => await _process.StandardOutput.ReadLineAsync().WaitAsync(TimeSpan.FromSeconds(10));

        public async ValueTask DisposeAsync()
        {
            _process.Kill(entireProcessTree: true);
            await _process.WaitForExitAsync();
            _process.Dispose();
        }
    }
}
