using System.Net.Security;
using System.Security.Cryptography.X509Certificates;
using Akka.Actor;
using Akka.Remote;
using Akka.Remote.Transport;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Server.Kestrel.Https;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Akka.Tests.Hosting;

/// <summary>Mutual TLS (<c>tls.require-client-certificate = on</c>): nodes that present a client certificate (their
/// own, a file's, or the setup's) associate and exchange messages over wss, HTTP/1.1 and HTTP/2; a node that presents
/// none, or one the listener cannot validate while validation is on, cannot associate; in endpoint mode the transport
/// refuses a websocket whose connection carries no client certificate.</summary>
public sealed class MutualTlsTests : IDisposable
{
    private static readonly TimeSpan AskTimeout = TimeSpan.FromSeconds(10);
    private static readonly TimeSpan FailureBound = TimeSpan.FromSeconds(20);
    private readonly PfxFile _serverPfx = PfxFile.Create();
    private readonly PfxFile _clientPfx = PfxFile.Create();
    private readonly PfxFile _presentedPfx = PfxFile.Create();

    public void Dispose()
    {
        _serverPfx.Dispose();
        _clientPfx.Dispose();
        _presentedPfx.Dispose();
    }

    /// <summary>The listener of the server node requires client certificates and accepts any (suppress-validation).</summary>
    private string RequiringServer => _serverPfx.Hocon + "\ntls.require-client-certificate = on";

    [Theory]
    [InlineData("own certificate", "off")]
    [InlineData("own certificate", "on")]
    [InlineData("client-certificate file", "off")]
    [InlineData("setup certificate", "on")]
    public async Task Nodes_that_present_a_client_certificate_associate_and_exchange_messages(string presents, string http2)
    {
        using X509Certificate2 setupCertificate = X509CertificateLoader.LoadPkcs12FromFile(_presentedPfx.Path, _presentedPfx.Password);
        // Only the "own certificate" client requires client certificates itself (and so presents its own by default);
        // the others present nothing unless the file or the setup gives them a certificate.
        string clientHocon = _clientPfx.Hocon + $"\nhttp2 = {http2}" + presents switch
        {
            "own certificate" => "\ntls.require-client-certificate = on",
            "client-certificate file" => $"\ntls.client-certificate {{ path = \"{_presentedPfx.Path.Replace("\\", "/", StringComparison.Ordinal)}\", password = \"{_presentedPfx.Password}\" }}",
            _ => "",
        };
        WebSocketRemotingSetup? setup = presents == "setup certificate" ? new WebSocketRemotingSetup { ClientCertificate = setupCertificate } : null;
        ActorSystem server = Nodes.Start("server", RequiringServer + $"\nhttp2 = {http2}");
        ActorSystem client = Nodes.Start("client", clientHocon, setup: setup);
        try
        {
            server.ActorOf(Props.Create<Echo>(), "echo");
            client.ActorOf(Props.Create<Echo>(), "echo");

            string there = await client.ActorSelection(EchoOf(server)).Ask<string>("with a client certificate", AskTimeout);
            string back = await server.ActorSelection(EchoOf(client)).Ask<string>("and back", AskTimeout);

            Assert.Equal("with a client certificate", there);
            Assert.Equal("and back", back);
        }
        finally
        {
            await Task.WhenAll(client.Terminate(), server.Terminate());
        }
    }

    [Theory]
    [InlineData("off")]
    [InlineData("on")]
    public async Task A_node_without_a_client_certificate_cannot_associate(string http2)
    {
        ActorSystem server = Nodes.Start("server", RequiringServer);
        ActorSystem client = Nodes.Start("client", _clientPfx.Hocon + $"\nhttp2 = {http2}\nconnection-timeout = 5 s");
        try
        {
            await AssertCannotAssociate(client, server);
        }
        finally
        {
            await Task.WhenAll(client.Terminate(), server.Terminate());
        }
    }

    [Fact]
    public async Task A_client_certificate_the_listener_cannot_validate_is_refused_while_validation_is_on()
    {
        // The server validates client certificates against the system's trust store; the client's is self-signed.
        // (The client itself accepts the server's certificate: its suppress-validation stays on.)
        ActorSystem server = Nodes.Start("server", RequiringServer + "\ntls.suppress-validation = off");
        ActorSystem client = Nodes.Start("client", _clientPfx.Hocon + "\ntls.require-client-certificate = on\nconnection-timeout = 5 s");
        try
        {
            await AssertCannotAssociate(client, server);
        }
        finally
        {
            await Task.WhenAll(client.Terminate(), server.Terminate());
        }
    }

    [Fact]
    public async Task In_endpoint_mode_a_websocket_without_a_client_certificate_is_refused_and_one_with_it_associates()
    {
        using X509Certificate2 certificate = X509CertificateLoader.LoadPkcs12FromFile(_serverPfx.Path, _serverPfx.Password);
        // The application's Kestrel asks for client certificates but lets the handshake through without one: the
        // transport's check is then what refuses.
        await using RemotingApp app = await RemotingApp.StartAsync(certificate: certificate, https: https =>
        {
            https.ClientCertificateMode = ClientCertificateMode.AllowCertificate;
            https.ClientCertificateValidation = static (_, _, _) => true;
        });
        ActorSystem hosted = app.StartSystem("hosted", RequiringServer);
        hosted.ActorOf(Props.Create<Echo>(), "echo");
        ActorSystem client = Nodes.Start("client", _clientPfx.Hocon + "\ntls.require-client-certificate = on");
        try
        {
            string answer = await client.ActorSelection(EchoOf(hosted)).Ask<string>("through the application", AskTimeout);
            Assert.Equal("through the application", answer);

            using var timeout = new CancellationTokenSource(AskTimeout);
            var anonymous = new WebSocketClientOptions
            {
#pragma warning disable CA5359 // the test's self-signed server certificate
                Tls = new SslClientAuthenticationOptions { RemoteCertificateValidationCallback = static (_, _, _, _) => true },
#pragma warning restore CA5359
            };
            WebSocketHandshakeException refused = await Assert.ThrowsAsync<WebSocketHandshakeException>(
                () => WebSocketClient.ConnectAsync(new Uri($"wss://127.0.0.1:{app.Port}/akka/hosted"), anonymous, timeout.Token));
            Assert.Equal(StatusCodes.Status403Forbidden, refused.StatusCode);
        }
        finally
        {
            await client.Terminate();
        }
    }

    /// <summary>The client's ask to the server's echo is never answered, and Akka reports the failed association
    /// within <see cref="FailureBound"/>.</summary>
    private static async Task AssertCannotAssociate(ActorSystem client, ActorSystem server)
    {
        server.ActorOf(Props.Create<Echo>(), "echo");
        Task<AssociationErrorEvent> failed = AssociationErrors.Next(client, Nodes.AddressOf(server));

        Task<string> ask = client.ActorSelection(EchoOf(server)).Ask<string>("without a good certificate", TimeSpan.FromSeconds(3));

        AssociationErrorEvent error = await failed.WaitAsync(FailureBound);
        Assert.Contains(error.Causes(), cause => cause is InvalidAssociationException);
        await Assert.ThrowsAsync<AskTimeoutException>(() => ask);
    }

    private static ActorPath EchoOf(ActorSystem system) => new RootActorPath(Nodes.AddressOf(system)) / "user" / "echo";
}
