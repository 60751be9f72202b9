using Akka.Actor;

namespace WebSocketCodec.Akka.Cluster;

/// <summary>
/// A group's actor on one node, registered with the distributed publish/subscribe mediator at the same path on every
/// node: the frames other nodes publish arrive here, in each publisher's order, and go to this node's members.
/// </summary>
internal sealed class GroupNode(WebSocketGroup local) : UntypedActor
{
    protected override void OnReceive(object message)
    {
        if (message is GroupFrame frame)
        {
            local.Broadcast(frame.Opcode, frame.Payload);
        }
        else
        {
            Unhandled(message);
        }
    }
}
