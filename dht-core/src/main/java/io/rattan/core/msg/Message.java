package io.rattan.core.msg;

/**
 * Every message of the peer and client protocols. Records, immutable, compared by value, held by area in
 * {@link MembershipMessages}, {@link RequestMessages}, {@link ReplicaMessages}, {@link RepairMessages},
 * {@link ClientMessages}, {@link WatchMessages} and {@link NamespaceMessages}. Lists are copied to immutable lists;
 * optional bytes are {@code Bytes.EMPTY} when absent. Java 17 has no pattern switch: dispatch on {@link #type()}.
 */
public sealed interface Message permits
        MembershipMessages.Ping, MembershipMessages.Pong, MembershipMessages.HopAck, MembershipMessages.Hello,
        MembershipMessages.Challenge, MembershipMessages.ChallengeAnswer, MembershipMessages.Welcome,
        MembershipMessages.JoinRequest, MembershipMessages.JoinInfo, MembershipMessages.LeafExchange,
        MembershipMessages.Leave, MembershipMessages.LeafExchangeReply,
        RequestMessages.PutRequest, RequestMessages.GetRequest, RequestMessages.RemoveRequest,
        RequestMessages.PutReply, RequestMessages.GetReply, RequestMessages.RemoveReply, RequestMessages.ErrorReply,
        ReplicaMessages.StoreReplicas, ReplicaMessages.StoreAck, ReplicaMessages.PutAck, ReplicaMessages.RemoveAck,
        ReplicaMessages.RemoveReplica, ReplicaMessages.RemoveReplicaReply, ReplicaMessages.ReplicaRead,
        ReplicaMessages.ReplicaReadReply,
        RepairMessages.Digest, RepairMessages.DigestWant, RepairMessages.RangeDigest,
        RepairMessages.RangeDigestReply,
        ClientMessages.ClientPut, ClientMessages.ClientGet, ClientMessages.ClientRemove, ClientMessages.ClientRing,
        ClientMessages.RingReply, ClientMessages.IterativeGet, ClientMessages.IterativeGetReply,
        WatchMessages.Watch, WatchMessages.WatchAck, WatchMessages.WatchChange, WatchMessages.ClientWatch,
        WatchMessages.ClientUnwatch, WatchMessages.WatchEvent,
        NamespaceMessages.InNamespace, NamespaceMessages.NamespaceDefs, NamespaceMessages.NamespaceQuery {

    MessageType type();
}
