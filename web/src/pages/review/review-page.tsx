export default function Page() {
  return <h1>review-page</h1>;
}
