using Xunit.Abstractions;

namespace WebSocketCodec.SpanNetty.Tests.Http2.Conformance;

/// <summary>Every violation case's close exchange over HTTP/2 streams on the SpanNetty echo server (h2c and TLS with
/// ALPN h2): the server's Close with the right status, then END_STREAM once the exchange completes, not at the close
/// timeout; the pool balanced and no buffer leaked after each case.</summary>
public sealed class SpanNettyHttp2CloseExchangeTests(Http2EchoServers servers, ITestOutputHelper output)
    : CloseExchangeTests(output), IClassFixture<Http2EchoServers>, IAsyncLifetime
{
    protected override string Host => "spannetty h2";

    protected override Task<RawWebSocket> OpenAsync(bool tls) => servers.OpenAsync(tls);

    protected override Task<ServerEnd> NextServerEndAsync(CancellationToken cancellationToken) => servers.NextEndAsync(cancellationToken).AsTask();

    public Task InitializeAsync() => Task.CompletedTask;

    public Task DisposeAsync() => servers.AssertBalancedAsync();
}

/// <summary>After a violation over HTTP/2 streams on the SpanNetty echo server: END_STREAM right after the Close, the
/// stream closed at the peer's END_STREAM.</summary>
public sealed class SpanNettyHttp2ViolationEndTests(Http2EchoServers servers, ITestOutputHelper output)
    : ViolationEndTests(output), IClassFixture<Http2EchoServers>, IAsyncLifetime
{
    protected override string Host => "spannetty h2";

    protected override Task<RawWebSocket> OpenAsync(bool tls) => servers.OpenAsync(tls);

    protected override Task<ServerEnd> NextServerEndAsync(CancellationToken cancellationToken) => servers.NextEndAsync(cancellationToken).AsTask();

    public Task InitializeAsync() => Task.CompletedTask;

    public Task DisposeAsync() => servers.AssertBalancedAsync();
}
