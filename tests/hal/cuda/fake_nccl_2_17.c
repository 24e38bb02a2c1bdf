/* A stand-in for an NCCL release older than kiln runs with (2.17.1, before
 * ncclCommSplit): the one entry point kiln asks first. The NCCL loader test
 * opens it in place of libnccl.so.2 to check that such a library is refused
 * as too old, with both versions in the message. */
int ncclGetVersion(int* version) {
  *version = 21701;
  return 0; /* ncclSuccess */
}
