using Akka.Actor;
using Akka.Cluster;
using Akka.Cluster.Hosting;
using Akka.Hosting;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using WebSocketCodec.Akka;
using WebSocketCodec.Akka.Cluster;

namespace WebSocketCodec.Samples.Chat;

/// <summary>
/// The chat on a cluster (<c>--seeds</c>): the node joins the Akka cluster of the seed nodes, its remoting in endpoint
/// mode on the chat's own port (<c>/akka/chat</c>), and each room becomes a cluster group. The node prints
/// <c>cluster members: N</c> whenever the number of members that are up changes.
/// </summary>
internal static class ChatCluster
{
    /// <summary>Adds Akka (remoting on the application's port, clustering) to the application's services.</summary>
    public static void AddTo(WebApplicationBuilder builder, ChatOptions options)
    {
        if (options.Port == 0)
        {
            throw new ArgumentException("--seeds needs a fixed --port: other nodes reach this one there.");
        }

        string[] seeds = [.. options.Seeds.Select(seed => SeedAddress(seed, options.ClusterName))];
        builder.Services.AddAkkaRemoting();
        builder.Services.AddAkka(options.ClusterName, (akka, services) => akka
            .WithWebSocketRemoting(new WebSocketRemotingOptions
            {
                HostName = options.Host,
                Port = options.Port,
                ApplicationServices = services,
                // The sample's certificate is self-signed: outbound associations accept it (a real deployment trusts
                // its certificates' issuer instead).
                Tls = options.Tls ? new WebSocketRemotingTlsOptions { SuppressValidation = true } : null,
            })
            .WithClustering(new ClusterOptions { SeedNodes = seeds })
            .AddHocon(
                """
                akka.loglevel = WARNING
                akka.log-dead-letters = off
                akka.cluster.seed-node-timeout = 2s             # a node started before its seed retries soon
                akka.cluster.retry-unsuccessful-join-after = 2s
                akka.cluster.pub-sub.gossip-interval = 200ms    # how soon other nodes learn that this one has a room
                akka.cluster.split-brain-resolver.stable-after = 5s # an unreachable node is downed 5 s after the last change
                """,
                HoconAddMode.Prepend)
            .WithActors((system, _) =>
            {
                system.ActorOf(Props.Create<MembersPrinter>(), "members-printer");
                // A node that leaves, or that the others downed (it was unreachable, then came back), ends its actor
                // system: the whole node stops then (its websockets get 1001), for its clients to reconnect elsewhere.
                IHostApplicationLifetime lifetime = services.GetRequiredService<IHostApplicationLifetime>();
                system.WhenTerminated.ContinueWith(_ => lifetime.StopApplication(), TaskScheduler.Default);
            }));
    }

    /// <summary>The rooms as cluster groups, resolved when the first member joins (the actor system runs by then).</summary>
    public static Func<string, ClusterWebSocketGroup> Groups(IServiceProvider services, ChatOptions options)
    {
        ClusterWebSocketGroups? groups = null;
        return room => (groups ??= ClusterWebSocketGroups.Get(services.GetRequiredService<ActorSystem>()))
            .Group("chat-room:" + room, SlowMemberPolicy.Close, options.Pool);
    }

    /// <summary>A seed node's Akka address from its base URL: <c>http://h:p</c> → <c>akka.ws://chat@h:p</c>
    /// (<c>https</c> → <c>akka.wss</c>).</summary>
    public static string SeedAddress(Uri seed, string system)
    {
        ArgumentNullException.ThrowIfNull(seed);
        string scheme = seed.Scheme is "https" or "wss" ? "akka.wss" : seed.Scheme is "http" or "ws" ? "akka.ws"
            : throw new ArgumentException($"--seeds takes http://host:port URLs, not '{seed}'.");
        return $"{scheme}://{system}@{seed.Host}:{seed.Port}";
    }

    /// <summary>Prints <c>cluster members: N</c> (members up) whenever it changes.</summary>
    private sealed class MembersPrinter : ReceiveActor
    {
        private readonly HashSet<Address> _up = [];
        private int _printed = -1;

        public MembersPrinter()
        {
            Receive<ClusterEvent.MemberUp>(up => Change(() => _up.Add(up.Member.Address)));
            Receive<ClusterEvent.MemberRemoved>(removed => Change(() => _up.Remove(removed.Member.Address)));
            Receive<ClusterEvent.MemberExited>(exited => Change(() => _up.Remove(exited.Member.Address)));
            Receive<ClusterEvent.MemberDowned>(downed => Change(() => _up.Remove(downed.Member.Address)));
            Receive<ClusterEvent.IMemberEvent>(_ => { });
            Receive<ClusterEvent.CurrentClusterState>(_ => { });
        }

        protected override void PreStart() => global::Akka.Cluster.Cluster.Get(Context.System).Subscribe(
            Self, ClusterEvent.SubscriptionInitialStateMode.InitialStateAsEvents, typeof(ClusterEvent.IMemberEvent));

        protected override void PostStop() => global::Akka.Cluster.Cluster.Get(Context.System).Unsubscribe(Self);

        private void Change(Func<bool> change)
        {
            change();
            if (_up.Count != _printed)
            {
                _printed = _up.Count;
                Console.WriteLine($"cluster members: {_printed}");
            }
        }
    }
}
