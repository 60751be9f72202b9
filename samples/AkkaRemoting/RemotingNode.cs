using System.Globalization;
using Akka.Actor;
using Akka.Configuration;
using WebSocketCodec.Akka;
using WebSocketCodec.Samples.EchoServer;

namespace WebSocketCodec.Samples.AkkaRemoting;

/// <summary>Starts an actor system whose remoting runs on the websocket transport: everything is HOCON, except a TLS
/// certificate made at start (given through a <see cref="WebSocketRemotingSetup"/>).</summary>
public static class RemotingNode
{
    /// <summary>The HOCON of a node with these options.</summary>
    public static Config Config(AkkaRemotingOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        return ConfigurationFactory.ParseString($$"""
            akka {
              loglevel = WARNING
              stdout-loglevel = WARNING
              log-dead-letters-during-shutdown = off
              actor.provider = remote
              coordinated-shutdown.run-by-clr-shutdown-hook = off # the command line stops the node itself
              remote {
                enabled-transports = ["akka.remote.websocket"]
                websocket {
                  transport-class = "WebSocketCodec.Akka.WebSocketTransport, WebSocketCodec.Akka"
                  hostname = "{{options.Host}}"
                  port = {{options.Port.ToString(CultureInfo.InvariantCulture)}}
                  public-hostname = "{{options.PublicHost ?? ""}}"
                  public-port = {{options.PublicPort.ToString(CultureInfo.InvariantCulture)}}
                  http2 = {{(options.Http2 ? "on" : "off")}}
                  tls {
                    enabled = {{(options.Tls ? "on" : "off")}}
                    suppress-validation = {{(options.Tls ? "on" : "off")}}
                  }
                }
              }
            }
            """);
    }

    /// <summary>Starts the actor system <paramref name="name"/>.</summary>
    public static ActorSystem Start(string name, AkkaRemotingOptions options)
    {
        BootstrapSetup bootstrap = BootstrapSetup.Create().WithConfig(Config(options));
        return options.Tls
            ? ActorSystem.Create(name, bootstrap.And(new WebSocketRemotingSetup { ServerCertificate = SelfSignedCertificate.Create() }))
            : ActorSystem.Create(name, bootstrap);
    }

    /// <summary>The node's own address, as other nodes reach it.</summary>
    public static Address AddressOf(ActorSystem system) => ((ExtendedActorSystem)system).Provider.DefaultAddress;
}
