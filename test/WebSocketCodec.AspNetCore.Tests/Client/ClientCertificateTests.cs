using System.Net.Security;
using System.Security.Cryptography.X509Certificates;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Server.Kestrel.Https;
using WebSocketCodec.AspNetCore.Tests.Infrastructure;
using WebSocketCodec.Lean;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore.Tests.Client;

/// <summary>
/// Mutual TLS: both clients present a certificate (given, or chosen by a callback); the Kestrel endpoint, the fast
/// path and the lean server require one, check it against a private CA, and tell the application whose it is. A
/// missing or untrusted certificate never gets a websocket.
/// </summary>
public sealed class ClientCertificateTests
{
    public enum Server
    {
        Endpoint,
        FastPath,
        Lean,
    }

    public enum Presented
    {
        Trusted,
        TrustedByCallback,
        None,
        Untrusted,
    }

    public static TheoryData<Server, bool, Presented> Cases()
    {
        var cases = new TheoryData<Server, bool, Presented>();
        foreach (Presented presented in Enum.GetValues<Presented>())
        {
            cases.Add(Server.Endpoint, false, presented);
            cases.Add(Server.Endpoint, true, presented);
            cases.Add(Server.FastPath, false, presented);
            cases.Add(Server.Lean, false, presented);
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task OnlyATrustedClientCertificateGetsAWebSocketAndTheApplicationSeesIt(Server server, bool http2, Presented presented)
    {
        (IAsyncDisposable started, Uri url) = await StartAsync(server);
        await using IAsyncDisposable host = started;
        X509Certificate2? certificate = presented switch
        {
            Presented.Trusted or Presented.TrustedByCallback => TestCertificates.Trusted,
            Presented.Untrusted => TestCertificates.Untrusted,
            _ => null,
        };
        var tls = new SslClientAuthenticationOptions
        {
            RemoteCertificateValidationCallback = (_, _, _, _) => true, // the server's own certificate is self-signed
            ClientCertificates = presented == Presented.TrustedByCallback || certificate is null ? null : [certificate],
            LocalCertificateSelectionCallback = presented == Presented.TrustedByCallback ? (_, _, _, _, _) => certificate! : null,
        };
        var options = new WebSocketClientOptions { Tls = tls, HandshakeTimeout = TimeSpan.FromSeconds(10) };
        if (presented is Presented.None or Presented.Untrusted)
        {
            await Assert.ThrowsAsync<WebSocketHandshakeException>(() => ConnectAsync(url, options, http2));
            return;
        }

        await using MessageWebSocket webSocket = await ConnectAsync(url, options, http2);
        using WebSocketMessage? seen = await webSocket.ReceiveAsync().AsTask().WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal("CN=trusted client", seen!.GetText());
    }

    private static async Task<MessageWebSocket> ConnectAsync(Uri url, WebSocketClientOptions options, bool http2)
    {
        if (!http2)
        {
            return await WebSocketClient.ConnectMessagesAsync(url, options);
        }

        var invoker = new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler(options));
        return await WebSocketHttp2Client.ConnectMessagesAsync(invoker, url, options);
    }

    private static async Task<(IAsyncDisposable Host, Uri Url)> StartAsync(Server server)
    {
        if (server != Server.Lean)
        {
            KestrelHost kestrel = await StartKestrelAsync(server == Server.FastPath);
            return (kestrel, kestrel.WebSocketUrl("/who"));
        }

        var lean = LeanWebSocketServer.StartMessages(
            new LeanWebSocketServerOptions
            {
                Path = "/who",
                Tls = new SslServerAuthenticationOptions
                {
                    ServerCertificate = WebSocketCodec.Samples.EchoServer.SelfSignedCertificate.Create(),
                    ClientCertificateRequired = true,
                    RemoteCertificateValidationCallback = TestCertificates.Check,
                },
            },
            async (request, webSocket) =>
            {
                await webSocket.SendTextAsync(request.ClientCertificate?.Subject ?? "none");
                await webSocket.Completion;
            });
        return (lean, new Uri($"wss://127.0.0.1:{lean.EndPoint.Port}/who"));
    }

    private static async Task<KestrelHost> StartKestrelAsync(bool fastPath) => await KestrelHost.StartAsync(
        map: fastPath ? null : app => app.MapWebSocketMessages("/who", (context, webSocket) =>
            webSocket.SendTextAsync(context.Connection.ClientCertificate?.Subject ?? "none").AsTask()),
        listen: listen =>
        {
            listen.Protocols = HttpProtocols.Http1AndHttp2;
            if (fastPath)
            {
                listen.UseWebSockets(async (result, connection) =>
                {
                    MessageWebSocket webSocket = connection.RunMessages();
                    await webSocket.SendTextAsync(result.ClientCertificate?.Subject ?? "none");
                    await webSocket.Completion;
                });
            }
        },
        tls: true,
        kestrelOptions: kestrel => kestrel.ConfigureHttpsDefaults(https =>
        {
            https.ClientCertificateMode = ClientCertificateMode.RequireCertificate;
            https.ClientCertificateValidation = (certificate, _, _) => TestCertificates.IssuedByAuthority(certificate);
        }));
}
