using Akka.Actor;
using System.Runtime.Serialization;
using Akka.Serialization;

namespace WebSocketCodec.Akka.Cluster;

/// <summary>
/// The binary form of a <see cref="GroupFrame"/> between nodes: exactly its bytes (the opcode, then the payload), no
/// manifest, no framing of its own: Akka's envelope carries the length. Registered by
/// <see cref="ClusterWebSocketGroups"/> on every node that has a group, under <see cref="Id"/>.
/// </summary>
internal sealed class GroupFrameSerializer(ExtendedActorSystem system) : Serializer(system)
{
    /// <summary>The serializer's identifier, the same on every node (Akka's own are below 100).</summary>
    public const int Id = 561_301;

    public override int Identifier => Id;

    public override bool IncludeManifest => false;

    public override byte[] ToBinary(object obj) => obj is GroupFrame frame
        ? frame.Wire
        : throw new ArgumentException($"{nameof(GroupFrameSerializer)} serializes group frames only, not {obj?.GetType().FullName ?? "null"}.", nameof(obj));

    public override object FromBinary(byte[] bytes, Type type)
    {
        ArgumentNullException.ThrowIfNull(bytes);
        if (bytes.Length == 0 || (WebSocketOpcode)bytes[0] is not (WebSocketOpcode.Text or WebSocketOpcode.Binary))
        {
            throw new SerializationException("A websocket group frame starts with a Text or Binary opcode.");
        }

        return new GroupFrame(bytes);
    }
}
